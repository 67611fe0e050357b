import Catalog
import Foundation

/// The JSON shapes of a build answer.
enum BuildViews {
    struct Outcome: Encodable {
        let term: String
        let count: Int
        let countIsExact: Bool
        let rankingIsExact: Bool
        let courseCount: Int
        let schedules: [Schedule]
        let explanation: Explanation?
        /// With `eligibleOnly`: the sections left out, each with the rules that refuse it.
        let excluded: [Excluded]?

        struct Excluded: Encodable {
            let classId: Int64
            let rules: [String]
        }

        init(
            _ outcome: BuildOutcome, term: String, snapshot: CatalogCache.Snapshot, ineligible: [Int64: [String]]? = nil,
            sharedWithFriends: [[FriendRanking.SharedSections]]? = nil, friendNames: [Int64: String] = [:]
        ) {
            excluded = ineligible.map { $0.sorted { $0.key < $1.key }.map { Excluded(classId: $0.key, rules: $0.value) } }
            self.term = term
            count = outcome.count
            countIsExact = outcome.countIsExact
            rankingIsExact = outcome.rankingIsExact
            courseCount = outcome.courseCount
            schedules = outcome.schedules.enumerated().map { index, schedule in
                Schedule(schedule, snapshot: snapshot, friends: sharedWithFriends.map { shared in
                    (index < shared.count ? shared[index] : []).map { Friend(accountId: $0.friendID, displayName: friendNames[$0.friendID] ?? "", classIds: $0.classIDs) }
                })
            }
            explanation = outcome.explanation.map(Explanation.init)
        }
    }

    struct Schedule: Encodable {
        let rank: Int
        let score: Double
        let units: Double
        let breakdown: Breakdown
        let sections: [Section]
        let omitted: [String]
        /// With `withFriends`: the friends this schedule shares sections with.
        let friends: [Friend]?

        init(_ schedule: RankedSchedule, snapshot: CatalogCache.Snapshot, friends: [Friend]? = nil) {
            self.friends = friends
            rank = schedule.rank
            score = schedule.score
            units = schedule.units
            breakdown = Breakdown(schedule.breakdown)
            sections = schedule.sections.map { Section($0, snapshot: snapshot) }
            omitted = schedule.omitted
        }
    }

    /// A friend a schedule shares sections with.
    struct Friend: Encodable {
        let accountId: Int64
        let displayName: String
        let classIds: [Int64]
    }

    struct Breakdown: Encodable {
        let components: [String: Double]
        let courses: [CourseScore]

        init(_ breakdown: ScoreBreakdown) {
            components = Dictionary(breakdown.components.map { ($0.name, $0.points) }, uniquingKeysWith: { a, _ in a })
            courses = breakdown.courses.map(CourseScore.init)
        }
    }

    struct CourseScore: Encodable {
        let course: String
        let units: Double
        let averageGPA: Double
        let averageGPAIsMedian: Bool
        let instructorRating: Double
        let instructorRatingIsMedian: Bool
        let instructors: [String]
        let points: Double

        init(_ score: Scheduling.CourseScore) {
            course = score.course
            units = score.units
            averageGPA = (score.gpa * 1000).rounded() / 1000
            averageGPAIsMedian = !score.gpaKnown
            instructorRating = (score.rating * 1000).rounded() / 1000
            instructorRatingIsMedian = !score.ratingKnown
            instructors = score.instructors
            points = score.points
        }
    }

    struct Section: Encodable {
        let course: String
        let component: String?
        let classId: Int64
        let section: String
        let instructors: [String]
        let meetings: [CatalogViews.Meeting]
        let openSeats: Int
        let alternatives: [Int64]

        init(_ placed: PlacedSection, snapshot: CatalogCache.Snapshot) {
            course = placed.course
            component = placed.component.isEmpty ? nil : placed.component
            classId = placed.classID
            alternatives = placed.alternatives
            let listing = snapshot.listing(id: placed.classID)
            section = listing?.info.section ?? ""
            instructors = listing?.info.instructors ?? []
            meetings = listing?.info.meetings.map(CatalogViews.Meeting.init) ?? []
            openSeats = listing?.seats.openSeats ?? 0
        }
    }

    struct Explanation: Encodable {
        let message: String
        let courses: [String]
        let constraints: [Constraint]

        init(_ explanation: Scheduling.Explanation) {
            message = explanation.message
            courses = explanation.courses
            constraints = explanation.constraints.map(Constraint.init)
        }
    }

    struct Constraint: Encodable {
        let kind: String
        let description: String
        let days: String?
        let start: String?
        let end: String?
        let classId: Int64?
        let units: Double?

        init(_ constraint: ExplainedConstraint) {
            kind = constraint.kind
            description = constraint.description
            days = constraint.blocked.map { $0.days.sdsu }
            start = constraint.blocked?.start?.sdsu
            end = constraint.blocked?.end?.sdsu
            classId = constraint.classID
            units = constraint.units
        }
    }
}

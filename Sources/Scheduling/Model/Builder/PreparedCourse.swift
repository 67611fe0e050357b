import Catalog
/// A course ready for the search: its candidates (best first) and their ranking points.
struct PreparedCourse: Sendable {
    /// The course's position in the request (schedules list courses in that order).
    let position: Int
    let course: CourseOptions
    let candidates: [Candidate]
    /// GPA plus rating points of each candidate, aligned with ``candidates``.
    let quality: [Int64]
    let gpaPoints: Int64
    let gpa: Double
    let gpaKnown: Bool

    var optional: Bool { course.optional }
    var units: Double { course.units }

    init(position: Int, course: CourseOptions, candidates unsorted: [Candidate], ratings: RatingBook, ranking: Ranking) {
        self.position = position
        self.course = course
        let gpa = course.averageGPA.map { ($0, true) } ?? ratings.gpa(course: course.label)
        self.gpa = gpa.0
        self.gpaKnown = gpa.1
        let gpaPoints = ranking.gpaPoints(units: course.units, gpa: gpa.0)
        self.gpaPoints = gpaPoints
        let scored = unsorted.map { candidate -> (Candidate, Int64) in
            var candidate = candidate
            candidate.alternatives = candidate.alternatives.map { $0.sorted() }
            return (candidate, gpaPoints + ranking.ratingPoints(units: course.units, rating: candidate.rating))
        }.sorted { a, b in
            a.1 != b.1 ? a.1 > b.1 : a.0.classIDs.lexicographicallyPrecedes(b.0.classIDs)
        }
        candidates = scored.map(\.0)
        quality = scored.map(\.1)
        var groups: [CandidateGroup] = []
        var groupByKey: [GroupKey: Int] = [:]
        for (index, (candidate, points)) in scored.enumerated() {
            let key = GroupKey(mask: candidate.mask, quality: points)
            if let existing = groupByKey[key] {
                groups[existing].members.append(index)
                groups[existing].weight += candidate.weight
                continue
            }
            groupByKey[key] = groups.count
            groups.append(CandidateGroup(
                members: [index], mask: candidate.mask, slots: candidate.mask.slotCount, days: candidate.days,
                earliestStart: candidate.earliestStart, latestEnd: candidate.latestEnd, weight: candidate.weight, quality: points
            ))
        }
        self.groups = groups
        // For counting and feasibility only the slots matter: candidates with the same slots
        // are one group whatever their points (a TBA course is then a single group).
        var countGroups: [CandidateGroup] = []
        var byMask: [WeekMask: Int] = [:]
        for group in groups {
            if let existing = byMask[group.mask] {
                countGroups[existing].members += group.members
                countGroups[existing].weight += group.weight
                countGroups[existing].quality = max(countGroups[existing].quality, group.quality)
                continue
            }
            byMask[group.mask] = countGroups.count
            countGroups.append(group)
        }
        self.countGroups = countGroups
        allUnscheduled = groups.allSatisfy { $0.mask.isEmpty }
    }

    /// ``groups`` merged by slots alone, for counting and feasibility.
    let countGroups: [CandidateGroup]
    /// Whether no candidate occupies any slot (TBA or online): nothing can conflict with it.
    let allUnscheduled: Bool

    /// Candidates with the same weekly slots and the same points: interchangeable for every
    /// score, so the search places the group once and lists its members only in results.
    let groups: [CandidateGroup]

    private struct GroupKey: Hashable {
        let mask: WeekMask
        let quality: Int64
    }
}

/// Candidates of one course that score the same wherever they are placed.
struct CandidateGroup: Sendable {
    /// Indices into ``PreparedCourse/candidates``, best first then by class ids.
    var members: [Int]
    var mask: WeekMask
    /// Occupied five-minute slots.
    var slots: Int
    var days: Weekdays
    var earliestStart: Int?
    var latestEnd: Int?
    /// Raw combinations the members stand for together.
    var weight: Int
    var quality: Int64
}

public import Catalog
public import Contracts
public import Foundation
public import GatewayCore
import Synchronization

/// Builds schedules from the live catalog: resolves the requested courses in the term, hands
/// their sections (with current seats) and the ranking data to the pure ``ScheduleBuilder``,
/// and limits how often one address may ask.
public final class BuildService: Sendable {
    let catalog: CatalogService
    let ratings: RatingService
    let rateLimit: RateLimit?
    let clock: any GatewayClock
    let builder: @Sendable (RatingBook, RankingWeights) -> ScheduleBuilder
    /// Asked for `eligibleOnly` builds; nil: such builds are refused as unavailable.
    let eligibility: (any RegistrationEligibility)?
    /// Asked for `withFriends` builds; nil: such builds are refused as unavailable.
    let friends: (any FriendsInClasses)?
    private let directory = Mutex<CourseDirectory?>(nil)

    /// `rateLimit` nil lets any address build as often as it likes.
    public init(
        catalog: CatalogService, ratings: RatingService, rateLimit: RateLimit?, clock: any GatewayClock,
        eligibility: (any RegistrationEligibility)? = nil, friends: (any FriendsInClasses)? = nil,
        builder: @escaping @Sendable (RatingBook, RankingWeights) -> ScheduleBuilder = { ScheduleBuilder(ratings: $0, weights: $1) }
    ) {
        self.eligibility = eligibility
        self.friends = friends
        self.catalog = catalog
        self.ratings = ratings
        self.rateLimit = rateLimit
        self.clock = clock
        self.builder = builder
    }

    /// What a build answers: the outcome, the catalog snapshot it was built from (for describing
    /// sections), and the sections an `eligibleOnly` build left out, with their rules.
    public struct Built: Sendable {
        public var outcome: BuildOutcome
        public var snapshot: CatalogCache.Snapshot
        public var ineligible: [Int64: [String]]
        /// With `withFriends`: per schedule, the friends it shares sections with.
        public var sharedWithFriends: [[FriendRanking.SharedSections]]?
        /// The names of those friends.
        public var friendNames: [Int64: String] = [:]
    }

    /// Builds for `request`; `accountID` is the signed-in caller's (needed for `eligibleOnly`).
    public func build(_ request: BuildRequest, clientAddress: String?, accountID: Int64? = nil) async throws -> Built {
        if let rateLimit, let wait = rateLimit.take(clientAddress.map(ClientNetwork.key) ?? "unknown", now: clock.now()) {
            throw SchedulingError.rateLimited(retryAfterSeconds: wait)
        }
        let snapshot = try await catalog.snapshot()
        let directory = self.directory(for: snapshot.index)
        guard directory.offers(term: request.term) else {
            throw SchedulingError.invalid(field: "term", message: "No classes are offered in term '\(request.term)'.")
        }
        var seen: Set<CourseLabel> = []
        var courses: [CourseOptions] = []
        for requested in request.courses {
            guard seen.insert(requested.label).inserted else {
                throw SchedulingError.invalid(field: requested.field, message: "\(requested.label) is asked for twice.")
            }
            let slots = directory.slots(term: request.term, course: requested.label)
            guard let first = slots.first else {
                throw SchedulingError.invalid(field: requested.field, message: "\(requested.label) is not offered in \(request.term).")
            }
            let info = snapshot.index.classes[first]
            courses.append(CourseOptions(
                label: info.courseLabel,
                optional: requested.optional,
                units: CourseOptions.units(parsing: info.units),
                sections: slots.map { slot in
                    let item = snapshot.index.classes[slot]
                    return SectionOption(
                        classID: item.id, section: item.section, component: item.component, links: item.links,
                        instructors: item.instructors, meetings: item.meetings, openSeats: snapshot.seats[slot].openSeats
                    )
                }
            ))
        }
        let known = Set(courses.flatMap { $0.sections.map(\.classID) })
        for (index, id) in request.constraints.pinned.enumerated() where !known.contains(id) {
            throw SchedulingError.invalid(field: "pinned[\(index)]", message: "Class \(id) is not a section of a requested course in \(request.term).")
        }
        let required = request.courses.filter { !$0.optional }.count
        if let maxCourses = request.constraints.maxCourses, maxCourses < required {
            throw SchedulingError.invalid(field: "maxCourses", message: "maxCourses (\(maxCourses)) is below the \(required) required courses.")
        }
        var constraints = request.constraints
        var ineligible: [Int64: [String]] = [:]
        if request.eligibleOnly {
            guard let accountID else { throw SchedulingError.signInRequired }
            guard let eligibility else { throw SchedulingError.eligibilityUnavailable }
            // A pinned section stays: the student asked for it by name (an override may come).
            let pinned = Set(constraints.pinned)
            ineligible = try await eligibility.ineligibleClasses(accountID: accountID, among: known.sorted()).filter { !pinned.contains($0.key) }
            constraints.excluded = Array(Set(constraints.excluded).union(ineligible.keys)).sorted()
        }
        let book = try await ratings.book()
        let outcome = builder(book, request.weights).build(courses: courses, constraints: constraints, limit: request.limit)
        guard request.withFriends else { return Built(outcome: outcome, snapshot: snapshot, ineligible: ineligible) }
        guard let accountID else { throw SchedulingError.signInRequired }
        guard friends != nil else { throw SchedulingError.friendsUnavailable }
        let placed = outcome.schedules.flatMap { $0.sections.flatMap { [$0.classID] + $0.alternatives } }
        let (byClass, names) = try await friendsTaking(Array(Set(placed)).sorted(), accountID: accountID)
        let (ranked, sharing) = FriendRanking.apply(outcome, friendsByClass: byClass)
        return Built(outcome: ranked, snapshot: snapshot, ineligible: ineligible, sharedWithFriends: sharing, friendNames: names)
    }

    private func directory(for index: CatalogIndex) -> CourseDirectory {
        if let current = directory.withLock({ $0 }), current.version == index.version, current.matches(index) { return current }
        let built = CourseDirectory(index: index)
        directory.withLock { $0 = built }
        return built
    }
}

public import Catalog
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
    private let directory = Mutex<CourseDirectory?>(nil)

    /// `rateLimit` nil lets any address build as often as it likes.
    public init(
        catalog: CatalogService, ratings: RatingService, rateLimit: RateLimit?, clock: any GatewayClock,
        builder: @escaping @Sendable (RatingBook, RankingWeights) -> ScheduleBuilder = { ScheduleBuilder(ratings: $0, weights: $1) }
    ) {
        self.catalog = catalog
        self.ratings = ratings
        self.rateLimit = rateLimit
        self.clock = clock
        self.builder = builder
    }

    /// The outcome and the catalog snapshot it was built from (for describing sections).
    public func build(_ request: BuildRequest, clientAddress: String?) async throws -> (BuildOutcome, CatalogCache.Snapshot) {
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
        let book = try await ratings.book()
        let outcome = builder(book, request.weights).build(courses: courses, constraints: request.constraints, limit: request.limit)
        return (outcome, snapshot)
    }

    private func directory(for index: CatalogIndex) -> CourseDirectory {
        if let current = directory.withLock({ $0 }), current.version == index.version, current.matches(index) { return current }
        let built = CourseDirectory(index: index)
        directory.withLock { $0 = built }
        return built
    }
}

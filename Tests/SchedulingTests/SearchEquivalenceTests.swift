import Catalog
import PropertyBased
import Testing
@testable import Scheduling

/// The search against the one it replaced (``ReferenceTopSchedules`` and friends, kept in
/// ReferenceSearch.swift) on random catalogs made for ties: the same schedules in the same
/// order (ties included), the same count, exactness and feasibility, budgets included; and
/// the ranking bounds checked against every node's true best.
@Suite struct SearchEquivalenceTests {
    /// A random request: 2–7 courses of 1–8 sections (some a lecture with labs), on a coarse
    /// grid of days and hours with four instructors of which three rate the same, and often
    /// the same units for every course, so that many schedules score the same; some TBA
    /// sections, some optional courses, a target and sometimes unit limits.
    struct Request: CustomStringConvertible {
        var courses: [CourseOptions]
        var target: Int
        var minUnits: Double?
        var maxUnits: Double?
        var limit: Int
        var description: String {
            "\(courses.map { "\($0.label)\($0.optional ? "?" : "") \($0.units)u \($0.sections.map { "\($0.classID)\($0.component.prefix(1)):\($0.meetings.map { "\($0.days.rawValue)@\($0.start?.minutes ?? -1)" })" })" }) target \(target) units \(String(describing: minUnits))...\(String(describing: maxUnits)) limit \(limit)"
        }
    }

    static let ratings = RatingBook(courseGPAs: ["C 0": 3.2, "C 2": 2.1], instructorRatings: ["I0": 4.0, "I1": 4.0, "I2": 2.0])

    static func request(seed: UInt64) -> Request {
        var random = RandomCatalog(seed: seed)
        let dayChoices = ["MWF", "TTh", "MW", "TTh", "MTWThF", "F"]
        var id: Int64 = 1
        let sameUnits = random.next(2) == 0
        let courses = (0..<(2 + random.next(6))).map { index in
            let components = random.next(4) == 0 ? ["Lecture", "Lab"] : [""]
            var sections: [SectionOption] = []
            for component in components {
                for number in 0..<(1 + random.next(component == "Lab" ? 4 : 8)) {
                    let start = 480 + random.next(9) * 60
                    let length = [50, 50, 75, 110][random.next(4)]
                    let meeting = random.next(8) == 0
                        ? Meeting.tba()
                        : Meeting(
                            days: Weekdays(parsing: dayChoices[random.next(dayChoices.count)])!,
                            start: TimeOfDay(minutes: start), end: TimeOfDay(minutes: start + length)
                        )
                    sections.append(SectionOption(
                        classID: id, section: component == "Lab" ? "L\(number)" : "S\(number)", component: component,
                        links: component == "Lab" && random.next(3) == 0 ? ["S\(random.next(2))"] : [],
                        instructors: ["I\(random.next(4))"], meetings: [meeting], openSeats: 5
                    ))
                    id += 1
                }
            }
            return CourseOptions(
                label: "C \(index)", optional: random.next(4) == 0, units: sameUnits ? 3 : Double(1 + random.next(4)), sections: sections
            )
        }
        let required = courses.filter { !$0.optional }.count
        let target = max(1, required + random.next(courses.count - required + 1))
        let units = courses.map(\.units).reduce(0, +)
        return Request(
            courses: courses, target: target,
            minUnits: random.next(5) == 0 ? Double(random.next(Int(units) + 1)) : nil,
            maxUnits: random.next(5) == 0 ? Double(2 + random.next(Int(units) + 1)) : nil,
            limit: 1 + random.next(12)
        )
    }

    static let requests = Gen.int(in: 0...Int(Int32.max)).map { request(seed: UInt64($0)) }

    /// Candidates and groups as ``ScheduleBuilder`` prepares them.
    static func prepare(_ request: Request) -> (courses: [PreparedCourse], ranking: Ranking) {
        let ranking = Ranking(weights: RankingWeights(), referenceUnits: request.courses.map(\.units).reduce(0, +))
        let builder = CandidateBuilder(ratings: ratings, blockedMask: WeekMask(), openSeatsOnly: false, pinned: [], excluded: [])
        let prepared = request.courses.enumerated().map { position, course in
            PreparedCourse(
                position: position, course: course, candidates: (try? builder.candidates(for: course).get()) ?? [],
                ratings: ratings, ranking: ranking
            )
        }
        return (prepared, ranking)
    }

    @Test func rankingMatchesTheSearchItReplaced() async {
        await propertyCheck(count: 400, input: Self.requests) { request in
            let (courses, ranking) = Self.prepare(request)
            var reference = ReferenceTopSchedules(
                space: ReferenceSearchSpace(courses: courses, target: request.target, minUnits: request.minUnits, maxUnits: request.maxUnits),
                ranking: ranking, limit: request.limit, budget: 1_000_000
            )
            reference.run()
            var top = TopSchedules(
                space: SearchSpace(courses: courses, target: request.target, minUnits: request.minUnits, maxUnits: request.maxUnits, counting: false),
                ranking: ranking, limit: request.limit, budget: 1_000_000
            )
            top.run()
            #expect(top.complete && reference.complete)
            #expect(top.kept.map(\.choice) == reference.kept.map(\.choice), "\(request)")
            #expect(top.kept.map(\.score) == reference.kept.map(\.score))
            #expect(top.kept.map(\.key) == reference.kept.map(\.key))
            #expect(top.kept.map(\.shape) == reference.kept.map(\.shape))
        }
    }

    /// Counting and feasibility visit the same nodes as before, so even a count cut short by
    /// its budget is the same lower bound.
    @Test func countsAndFeasibilityMatchTheSearchTheyReplacedWithinAnyBudget() async {
        await propertyCheck(count: 300, input: Self.requests) { request in
            let (courses, _) = Self.prepare(request)
            var old = ReferenceSearchSpace(courses: courses, target: request.target, minUnits: request.minUnits, maxUnits: request.maxUnits)
            old.counting = true
            let new = SearchSpace(courses: courses, target: request.target, minUnits: request.minUnits, maxUnits: request.maxUnits, counting: true)
            for budget in [1, 3, 10, 40, 1_000_000] {
                var reference = ReferenceCounter(space: old, budget: budget)
                reference.run()
                var counter = ScheduleCounter(space: new, budget: budget)
                counter.run()
                #expect(counter.count == reference.count, "budget \(budget): \(request)")
                #expect(counter.exact == reference.exact)
                var referenceCheck = ReferenceFeasibilityCheck(space: old, budget: budget)
                var check = FeasibilityCheck(space: new, budget: budget)
                #expect(check.run() == referenceCheck.run(), "budget \(budget): \(request)")
            }
        }
    }

    /// At every node of an unpruned search, neither bound is below the best schedule under it:
    /// the classic bound, and the lookahead asked about that very score.
    @Test func boundsNeverFallBelowTheBestScheduleOfTheirBranch() async {
        await propertyCheck(count: 250, input: Self.requests) { request in
            let (courses, ranking) = Self.prepare(request)
            let space = SearchSpace(courses: courses, target: request.target, minUnits: request.minUnits, maxUnits: request.maxUnits, counting: false)
            let path = SearchPath(space)
            let bound = RankingBound(path: path, ranking: ranking)
            var failures = 0
            /// The best score under the node at `level`; nil when no schedule is there.
            func best(_ level: Int) -> Int64? {
                guard path.viable(level) else { return nil }
                if path.placed[level] == space.target {
                    return space.unitsHold(path.units[level]) ? path.quality[level] + ranking.shapePoints(path.shape(level)).total : nil
                }
                let slot = path.pick(level)
                let course = path.course(slot, at: level)
                var options: [Int] = []
                path.forEachOption(of: course, at: level) { options.append($0) }
                var result: Int64?
                for group in options where path.place(group, slot: slot, at: level) {
                    if let score = best(level + 1) { result = max(result ?? score, score) }
                }
                path.choice[courses[course].position] = -1
                if path.optional[course] {
                    path.skip(slot, at: level)
                    if let score = best(level + 1) { result = max(result ?? score, score) }
                }
                if let result {
                    // The bounds' scratch state is per level: ask after the children are done.
                    let parts = bound.classic(level)
                    if parts.total < result || bound.lookaheadIsBelow(level, parts, result) { failures += 1 }
                }
                return result
            }
            _ = best(0)
            #expect(failures == 0, "\(request)")
        }
    }

    /// Compatibility rows say which groups share no slot, whether kept, built into the scratch
    /// row (a cache too small for any row) or kept only while a small cache lasts.
    @Test func compatibilityRowsMatchTheMasksCachedOrNot() async {
        await propertyCheck(count: 100, input: Self.requests) { request in
            let (courses, _) = Self.prepare(request)
            let groups = courses.flatMap(\.groups)
            for cache in [0, 7, GroupTables.defaultRowCacheWords] {
                let tables = GroupTables(
                    courseCount: courses.count, groups: { courses[$0].groups }, unscheduled: { courses[$0].allUnscheduled }, rowCacheWords: cache
                )
                var wrong = 0
                // The second round reads the rows kept in the first.
                for _ in 0..<2 {
                    for group in (0..<tables.groupCount).reversed() {
                        let row = tables.compatibleRow(group)
                        for course in courses.indices {
                            for local in 0..<tables.groupCounts[course] {
                                let fits = row[tables.wordStart[course] + local / 64] & (1 << UInt64(local % 64)) != 0
                                if fits == groups[tables.groupBase[course] + local].mask.intersects(groups[group].mask) { wrong += 1 }
                            }
                        }
                    }
                }
                #expect(wrong == 0, "cache \(cache): \(request)")
            }
        }
    }

    /// A tie found later with smaller class ids replaces the last kept schedule, as it always
    /// has: A (2 sections) is placed before B (3) but B comes first in the request, so B 1 with
    /// A 11 (12:00 and 13:00, keys 1, 11) is found after B 2 with A 10 (13:00 and 12:00, keys
    /// 2, 10), with the same score. At that branch the lookahead bound equals the score kept
    /// while the classic bound is above it: a lookahead that pruned at equality would keep the
    /// first one.
    @Test func aTieFoundLaterWithSmallerClassIDsStillReplacesTheLastKept() {
        typealias F = BuilderFixtures
        let b = F.course("B 1", [F.section(1, "MWF", "1200", "1250"), F.section(2, "MWF", "1300", "1350"), F.section(3, "TTh", "0800", "0850")])
        let a = F.course("A 1", [F.section(10, "MWF", "1200", "1250"), F.section(11, "MWF", "1300", "1350")])
        let outcome = ScheduleBuilder().build(courses: [b, a], constraints: BuildConstraints(), limit: 1)
        #expect(outcome.schedules.map { $0.sections.map(\.classID) } == [[1, 11]])
        let all = ScheduleBuilder().build(courses: [b, a], constraints: BuildConstraints(), limit: 10)
        #expect(all.schedules.prefix(2).map { $0.sections.map(\.classID) } == [[1, 11], [2, 10]])
        #expect(all.schedules[0].score == all.schedules[1].score)
    }

    /// Courses of 65–72 sections at different times (more than 64 groups: option sets and
    /// compatibility rows of several words), one of them optional, against the old search.
    @Test func coursesWithMoreGroupsThanAWordHolds() async {
        await propertyCheck(count: 5, input: Gen.int(in: 0...Int(Int32.max))) { seed in
            var random = RandomCatalog(seed: UInt64(seed))
            let days = ["MWF", "TTh", "MW", "M", "T", "W", "Th", "F"]
            var id: Int64 = 1
            let courses = (0..<(2 + random.next(2))).map { index in
                // Distinct meeting times (drawn without replacement from the 8 × 44 slots), so
                // every section is a group of its own and each course has more than 64.
                var slots = Array(0..<(days.count * 44))
                for index in slots.indices.reversed() where index > 0 { slots.swapAt(index, random.next(index + 1)) }
                let sections = slots.prefix(65 + random.next(8)).map { slot in
                    let start = 480 + 15 * (slot % 44)
                    defer { id += 1 }
                    return SectionOption(
                        classID: id, section: "S\(id)", instructors: ["I\(random.next(4))"],
                        meetings: [Meeting(days: Weekdays(parsing: days[slot / 44])!, start: TimeOfDay(minutes: start), end: TimeOfDay(minutes: start + 50))],
                        openSeats: 5
                    )
                }
                return CourseOptions(label: "C \(index)", optional: index == 1, units: 3, sections: sections)
            }
            let request = Request(courses: courses, target: courses.count - random.next(2), minUnits: nil, maxUnits: nil, limit: 1 + random.next(10))
            let (prepared, ranking) = Self.prepare(request)
            #expect(prepared.contains { $0.groups.count > 64 })
            var reference = ReferenceTopSchedules(
                space: ReferenceSearchSpace(courses: prepared, target: request.target, minUnits: nil, maxUnits: nil),
                ranking: ranking, limit: request.limit, budget: 1_000_000
            )
            reference.run()
            var top = TopSchedules(
                space: SearchSpace(courses: prepared, target: request.target, minUnits: nil, maxUnits: nil, counting: false),
                ranking: ranking, limit: request.limit, budget: 1_000_000
            )
            top.run()
            #expect(top.complete && reference.complete)
            #expect(top.kept.map(\.choice) == reference.kept.map(\.choice))
            #expect(top.kept.map(\.score) == reference.kept.map(\.score))
            var old = ReferenceSearchSpace(courses: prepared, target: request.target, minUnits: nil, maxUnits: nil)
            old.counting = true
            var referenceCount = ReferenceCounter(space: old, budget: 40_000)
            referenceCount.run()
            var count = ScheduleCounter(
                space: SearchSpace(courses: prepared, target: request.target, minUnits: nil, maxUnits: nil, counting: true), budget: 40_000
            )
            count.run()
            #expect(count.count == referenceCount.count && count.exact == referenceCount.exact)
        }
    }
}

import Catalog
/// One finished schedule found by the search: for each course in request order, the index of
/// its candidate, or -1 when an optional course was left out.
struct Placement: Sendable {
    var choice: [Int]
    var score: Int64
    var quality: Int64
    var shape: ShapePoints
    /// Primary class ids in request order (`Int64.max` for a left-out course): the tie-break.
    var key: [Int64]

    /// Whether `self` ranks before `other`.
    func ranks(before other: Placement) -> Bool {
        score != other.score ? score > other.score : key.lexicographicallyPrecedes(other.key)
    }
}

/// The depth-first search over courses shared by counting, ranking and feasibility: courses
/// with the fewest remaining candidates first, forward checking after every placement (a
/// required course left without a candidate ends the branch), and an exact count of placed
/// courses (`target`) and the unit limits.
struct SearchSpace {
    let courses: [PreparedCourse]
    let target: Int
    let minUnits: Double?
    let maxUnits: Double?
    /// Counting and feasibility search slot groups (``PreparedCourse/countGroups``); ranking
    /// searches groups of equal points too (``PreparedCourse/groups``).
    var counting = false

    /// The groups searched for a course in this mode.
    @inline(__always)
    func groups(_ course: Int) -> [CandidateGroup] { counting ? courses[course].countGroups : courses[course].groups }

    /// A course not placed yet and its candidate groups still compatible with the partial
    /// schedule (indices into ``PreparedCourse/groups``, best first).
    struct Open {
        var course: Int
        var options: [Int32]
    }

    /// What has been placed so far.
    struct Partial {
        var mask = WeekMask()
        var placed = 0
        var units = 0.0
        var quality: Int64 = 0
        var days: Weekdays = []
        var earliest: Int?
        var latest: Int?
        /// The group placed for each course in request order; -1 when not placed.
        var choice: [Int]
    }

    func root() -> (Partial, [Open]) {
        (Partial(choice: Array(repeating: -1, count: courses.count)),
         courses.indices.map { Open(course: $0, options: (0..<Int32(groups($0).count)).map { $0 }) })
    }

    /// Whether the branch can still reach `target` courses within the unit limits.
    func viable(_ partial: Partial, _ open: [Open]) -> Bool {
        if partial.placed > target || partial.placed + open.count < target { return false }
        let requiredLeft = open.filter { !courses[$0.course].optional }.count
        if partial.placed + requiredLeft > target { return false }
        if let maxUnits, partial.units > maxUnits + 1e-9 { return false }
        if let minUnits {
            let best = open.map { courses[$0.course].units }.sorted(by: >).prefix(target - partial.placed).reduce(0, +)
            if partial.units + best < minUnits - 1e-9 { return false }
        }
        return true
    }

    /// Whether a complete placement meets the unit limits.
    func unitsHold(_ units: Double) -> Bool {
        if let minUnits, units < minUnits - 1e-9 { return false }
        if let maxUnits, units > maxUnits + 1e-9 { return false }
        return true
    }

    /// The open course to branch on: required before optional, fewest options first.
    func pick(_ open: [Open]) -> Int {
        var best = 0
        for index in open.indices.dropFirst() {
            let a = open[index], b = open[best]
            let aOptional = courses[a.course].optional, bOptional = courses[b.course].optional
            if aOptional != bOptional { if !aOptional { best = index }; continue }
            if a.options.count < b.options.count || (a.options.count == b.options.count && a.course < b.course) { best = index }
        }
        return best
    }

    /// Places group `option` of `open[index]`; nil when forward checking empties a required course.
    func place(_ option: Int32, of index: Int, _ partial: Partial, _ open: [Open]) -> (Partial, [Open])? {
        let prepared = courses[open[index].course]
        let candidate = groups(open[index].course)[Int(option)]
        var next = partial
        next.mask = partial.mask.union(candidate.mask)
        next.placed += 1
        next.units += prepared.units
        next.quality += candidate.quality
        next.days.formUnion(candidate.days)
        if let start = candidate.earliestStart { next.earliest = min(next.earliest ?? start, start) }
        if let end = candidate.latestEnd { next.latest = max(next.latest ?? end, end) }
        next.choice[prepared.position] = Int(option)
        // A candidate without timed meetings conflicts with nothing: the others keep every option.
        if candidate.mask.isEmpty { return (next, skip(index, open)) }
        var rest: [Open] = []
        rest.reserveCapacity(open.count - 1)
        for (position, other) in open.enumerated() where position != index {
            if courses[other.course].allUnscheduled {
                rest.append(other)
                continue
            }
            let groups = groups(other.course)
            let kept = other.options.filter { !groups[Int($0)].mask.intersects(candidate.mask) }
            if kept.isEmpty, !courses[other.course].optional { return nil }
            rest.append(Open(course: other.course, options: kept))
        }
        return (next, rest)
    }

    /// Leaves an optional course out.
    func skip(_ index: Int, _ open: [Open]) -> [Open] {
        var rest = open
        rest.remove(at: index)
        return rest
    }
}

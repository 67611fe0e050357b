import Catalog
@testable import Scheduling

// The schedule search as it was before the bit-set search and the lookahead bound (commit
// a64762d: SearchSpace with `[Open]` arrays per node, TopSchedules with only the classic bound,
// ScheduleCounter and FeasibilityCheck), kept verbatim but renamed, as the reference the
// search must match answer for answer: which schedules, in which order, which ties, the count
// and whether it is exact, node budgets included.

/// The depth-first search over courses shared by counting, ranking and feasibility: courses
/// with the fewest remaining candidates first, forward checking after every placement (a
/// required course left without a candidate ends the branch), and an exact count of placed
/// courses (`target`) and the unit limits.
struct ReferenceSearchSpace {
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

/// The best `limit` schedules by branch and bound: a branch whose optimistic bound (points
/// already placed, the best candidate left for each open course, and the week-shape parts as
/// good as they can still get) cannot beat the worst kept schedule is never entered. Groups
/// of interchangeable candidates are tried best first, so good schedules are found early and
/// prune hard. Among schedules of equal score, those found first stay (the search order is
/// fixed: better groups first, then lower class ids), so answers are deterministic. After
/// `budget` nodes the search stops with the best found (`complete` false).
struct ReferenceTopSchedules {
    let space: ReferenceSearchSpace
    let ranking: Ranking
    let limit: Int
    let budget: Int

    /// Best first.
    private(set) var kept: [Placement] = []
    private(set) var complete = true
    private var nodes = 0

    init(space: ReferenceSearchSpace, ranking: Ranking, limit: Int, budget: Int) {
        self.space = space
        self.ranking = ranking
        self.limit = limit
        self.budget = budget
    }

    mutating func run() {
        guard limit > 0 else { return }
        let (partial, open) = space.root()
        visit(partial, open)
    }

    private var threshold: Int64? { kept.count == limit ? kept.last?.score : nil }

    private mutating func visit(_ partial: ReferenceSearchSpace.Partial, _ open: [ReferenceSearchSpace.Open]) {
        guard complete else { return }
        nodes += 1
        if nodes > budget { complete = false; return }
        guard space.viable(partial, open) else { return }
        if partial.placed == space.target {
            if space.unitsHold(partial.units) { keep(partial) }
            return
        }
        if let threshold, bound(partial, open) <= threshold { return }
        let index = space.pick(open)
        let chosen = open[index]
        for option in chosen.options {
            guard let (next, rest) = space.place(option, of: index, partial, open) else { continue }
            visit(next, rest)
            if !complete { return }
        }
        if space.courses[chosen.course].optional {
            visit(partial, space.skip(index, open))
        }
    }

    /// The most any schedule in this branch can score.
    func bound(_ partial: ReferenceSearchSpace.Partial, _ open: [ReferenceSearchSpace.Open]) -> Int64 {
        var quality = partial.quality
        var days = partial.days
        var earliest = partial.earliest
        var latest = partial.latest
        // Idle time only shrinks where a later class lands in it.
        let idle = partial.mask.gaps
        let idleSlots = idle.slotCount
        var fillable = 0
        for item in open {
            let prepared = space.courses[item.course]
            // Options are kept in group order, best quality first.
            if let first = item.options.first { quality += max(0, prepared.groups[Int(first)].quality) }
            if idleSlots > fillable {
                fillable += item.options.reduce(0) { best, option in max(best, prepared.groups[Int(option)].mask.overlapCount(idle)) }
            }
            guard !prepared.optional, !item.options.isEmpty else { continue }
            // Whatever the course places, it brings the days all its options share, starts no
            // later than its latest-starting option and ends no earlier than its earliest-ending one.
            var shared: Weekdays = [.monday, .tuesday, .wednesday, .thursday, .friday, .saturday, .sunday]
            var latestStart: Int? = Int.min
            var earliestEnd: Int? = Int.max
            for option in item.options {
                let candidate = prepared.groups[Int(option)]
                shared.formIntersection(candidate.days)
                if let start = candidate.earliestStart, let value = latestStart { latestStart = max(value, start) } else { latestStart = nil }
                if let end = candidate.latestEnd, let value = earliestEnd { earliestEnd = min(value, end) } else { earliestEnd = nil }
            }
            days.formUnion(shared)
            if let latestStart { earliest = min(earliest ?? latestStart, latestStart) }
            if let earliestEnd { latest = max(latest ?? earliestEnd, earliestEnd) }
        }
        let leastIdle = max(0, idleSlots - fillable) * WeekMask.slotMinutes
        return quality + ranking.shapeBound(days: days.rawValue.nonzeroBitCount, earliest: earliest, latest: latest, gapMinutes: leastIdle)
    }

    /// Keeps the schedules a leaf stands for: every combination of its groups' members, all of
    /// the same score, smallest class ids first, as long as they still make the cut.
    private mutating func keep(_ partial: ReferenceSearchSpace.Partial) {
        let shape = ranking.shapePoints(partial.mask.shape)
        let score = partial.quality + shape.total
        let members: [[Int]] = partial.choice.enumerated().map { position, group in
            group < 0 ? [-1] : space.courses[position].groups[group].members.sorted {
                space.courses[position].candidates[$0].classIDs.lexicographicallyPrecedes(space.courses[position].candidates[$1].classIDs)
            }
        }
        var odometer = Array(repeating: 0, count: members.count)
        while true {
            let choice = members.indices.map { members[$0][odometer[$0]] }
            let key = choice.enumerated().map { position, option in
                option < 0 ? Int64.max : space.courses[position].candidates[option].classIDs[0]
            }
            let placement = Placement(choice: choice, score: score, quality: partial.quality, shape: shape, key: key)
            guard insert(placement) else { return }
            var position = members.count - 1
            while position >= 0 {
                odometer[position] += 1
                if odometer[position] < members[position].count { break }
                odometer[position] = 0
                position -= 1
            }
            if position < 0 { return }
        }
    }

    /// Inserts a schedule in rank order; false when it does not make the cut.
    private mutating func insert(_ placement: Placement) -> Bool {
        if kept.count == limit, let last = kept.last, !placement.ranks(before: last) { return false }
        var low = 0, high = kept.count
        while low < high {
            let mid = (low + high) / 2
            if kept[mid].ranks(before: placement) { low = mid + 1 } else { high = mid }
        }
        kept.insert(placement, at: low)
        if kept.count > limit { kept.removeLast() }
        return true
    }
}

/// Counts conflict-free schedules (each folded alternative counted) by depth-first search,
/// stopping after `budget` nodes: the count is then a lower bound and `exact` is false.
/// The last open course is summed, not visited, so most leaves cost nothing.
struct ReferenceCounter {
    let space: ReferenceSearchSpace
    let budget: Int

    private(set) var count = 0
    private(set) var exact = true
    private var nodes = 0

    init(space: ReferenceSearchSpace, budget: Int) {
        self.space = space
        self.budget = budget
    }

    mutating func run() {
        let (partial, open) = space.root()
        visit(partial, open, multiplier: 1)
    }

    private mutating func add(_ value: Int) {
        let (sum, overflow) = count.addingReportingOverflow(value)
        count = overflow ? Int.max : sum
    }

    private mutating func visit(_ partial: ReferenceSearchSpace.Partial, _ open: [ReferenceSearchSpace.Open], multiplier: Int) {
        guard exact else { return }
        nodes += 1
        if nodes > budget { exact = false; return }
        guard space.viable(partial, open) else { return }
        if partial.placed == space.target {
            // Every course still open is optional (viable checked): leave them all out.
            if space.unitsHold(partial.units) { add(multiplier) }
            return
        }
        let index = space.pick(open)
        let chosen = open[index]
        let prepared = space.courses[chosen.course]
        if open.count == 1, partial.placed + 1 == space.target {
            guard space.unitsHold(partial.units + prepared.units) else { return }
            let total = chosen.options.reduce(0) { $0 + space.groups(chosen.course)[Int($1)].weight }
            add(multiplier.multipliedReportingOverflow(by: total).overflow ? Int.max : multiplier * total)
            return
        }
        for option in chosen.options {
            guard let (next, rest) = space.place(option, of: index, partial, open) else { continue }
            let weight = space.groups(chosen.course)[Int(option)].weight
            let product = multiplier.multipliedReportingOverflow(by: weight)
            visit(next, rest, multiplier: product.overflow ? Int.max : product.partialValue)
            if !exact { return }
        }
        if prepared.optional {
            visit(partial, space.skip(index, open), multiplier: multiplier)
        }
    }
}

/// Whether any schedule exists, stopping at the first (or after `budget` nodes: then unknown).
struct ReferenceFeasibilityCheck {
    let space: ReferenceSearchSpace
    let budget: Int
    private var nodes = 0

    init(space: ReferenceSearchSpace, budget: Int) {
        self.space = space
        self.budget = budget
    }

    /// true when a schedule exists, false when none does, nil when the budget ran out first.
    mutating func run() -> Bool? {
        let (partial, open) = space.root()
        return visit(partial, open)
    }

    private mutating func visit(_ partial: ReferenceSearchSpace.Partial, _ open: [ReferenceSearchSpace.Open]) -> Bool? {
        nodes += 1
        if nodes > budget { return nil }
        guard space.viable(partial, open) else { return false }
        if partial.placed == space.target { return space.unitsHold(partial.units) }
        let index = space.pick(open)
        var unknown = false
        for option in open[index].options {
            guard let (next, rest) = space.place(option, of: index, partial, open) else { continue }
            switch visit(next, rest) {
            case true?: return true
            case nil: unknown = true
            case false?: break
            }
            if nodes > budget { return nil }
        }
        if space.courses[open[index].course].optional {
            switch visit(partial, space.skip(index, open)) {
            case true?: return true
            case nil: unknown = true
            case false?: break
            }
        }
        return unknown ? nil : false
    }
}

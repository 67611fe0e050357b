/// Counts conflict-free schedules (each folded alternative counted) by depth-first search,
/// stopping after `budget` nodes: the count is then a lower bound and `exact` is false.
/// The last open course is summed, not visited, so most leaves cost nothing.
struct ScheduleCounter {
    let space: SearchSpace
    let budget: Int

    private(set) var count = 0
    private(set) var exact = true
    private var nodes = 0

    init(space: SearchSpace, budget: Int) {
        self.space = space
        self.budget = budget
    }

    mutating func run() {
        visit(SearchPath(space), 0, multiplier: 1)
    }

    private mutating func add(_ value: Int) {
        let (sum, overflow) = count.addingReportingOverflow(value)
        count = overflow ? Int.max : sum
    }

    private mutating func visit(_ path: SearchPath, _ level: Int, multiplier: Int) {
        guard exact else { return }
        nodes += 1
        if nodes > budget { exact = false; return }
        guard path.viable(level) else { return }
        if path.placed[level] == space.target {
            // Every course still open is optional (viable checked): leave them all out.
            if space.unitsHold(path.units[level]) { add(multiplier) }
            return
        }
        let slot = path.pick(level)
        let course = path.course(slot, at: level)
        let tables = space.tables
        let base = tables.groupBase[course]
        if path.openCount[level] == 1, path.placed[level] + 1 == space.target {
            guard space.unitsHold(path.units[level] + path.courseUnits[course]) else { return }
            var total = 0
            path.forEachOption(of: course, at: level) { total += tables.weight[base + $0] }
            add(multiplier.multipliedReportingOverflow(by: total).overflow ? Int.max : multiplier * total)
            return
        }
        let position = space.courses[course].position
        let words = path.options + level * path.words + tables.wordStart[course]
        for word in 0..<tables.wordCounts[course] {
            var bits = words[word]
            while bits != 0 {
                let group = word * 64 + bits.trailingZeroBitCount
                bits &= bits - 1
                guard path.place(group, slot: slot, at: level) else { continue }
                let product = multiplier.multipliedReportingOverflow(by: tables.weight[base + group])
                visit(path, level + 1, multiplier: product.overflow ? Int.max : product.partialValue)
                if !exact { return }
            }
        }
        path.choice[position] = -1
        if path.optional[course] {
            path.skip(slot, at: level)
            visit(path, level + 1, multiplier: multiplier)
        }
    }
}

/// Whether any schedule exists, stopping at the first (or after `budget` nodes: then unknown).
struct FeasibilityCheck {
    let space: SearchSpace
    let budget: Int
    private var nodes = 0

    init(space: SearchSpace, budget: Int) {
        self.space = space
        self.budget = budget
    }

    /// true when a schedule exists, false when none does, nil when the budget ran out first.
    mutating func run() -> Bool? {
        visit(SearchPath(space), 0)
    }

    private mutating func visit(_ path: SearchPath, _ level: Int) -> Bool? {
        nodes += 1
        if nodes > budget { return nil }
        guard path.viable(level) else { return false }
        if path.placed[level] == space.target { return space.unitsHold(path.units[level]) }
        let slot = path.pick(level)
        let course = path.course(slot, at: level)
        let tables = space.tables
        var unknown = false
        let words = path.options + level * path.words + tables.wordStart[course]
        for word in 0..<tables.wordCounts[course] {
            var bits = words[word]
            while bits != 0 {
                let group = word * 64 + bits.trailingZeroBitCount
                bits &= bits - 1
                guard path.place(group, slot: slot, at: level) else { continue }
                switch visit(path, level + 1) {
                case true?: return true
                case nil: unknown = true
                case false?: break
                }
                if nodes > budget { return nil }
            }
        }
        path.choice[space.courses[course].position] = -1
        if path.optional[course] {
            path.skip(slot, at: level)
            switch visit(path, level + 1) {
            case true?: return true
            case nil: unknown = true
            case false?: break
            }
        }
        return unknown ? nil : false
    }
}

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
        let (partial, open) = space.root()
        visit(partial, open, multiplier: 1)
    }

    private mutating func add(_ value: Int) {
        let (sum, overflow) = count.addingReportingOverflow(value)
        count = overflow ? Int.max : sum
    }

    private mutating func visit(_ partial: SearchSpace.Partial, _ open: [SearchSpace.Open], multiplier: Int) {
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
        let (partial, open) = space.root()
        return visit(partial, open)
    }

    private mutating func visit(_ partial: SearchSpace.Partial, _ open: [SearchSpace.Open]) -> Bool? {
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

/// Finds why nothing fits: the smallest set of required courses and constraints that cannot
/// all be satisfied together. It first drops items one by one while the rest still fails
/// (an irreducible set), then looks for a smaller failing set among all smaller subsets, within
/// a budget of checks. Any item of the answer, dropped, makes a schedule possible.
struct Explainer {
    let courses: [CourseOptions]
    let constraints: BuildConstraints
    let ratings: RatingBook
    let weights: RankingWeights
    let budget: Int
    /// The most feasibility checks spent looking for a smaller set than the irreducible one.
    static let subsetChecks = 2_000

    enum Item: Hashable {
        case course(Int)
        case blocked(Int)
        case openSeatsOnly
        case pinned(Int64)
        case excluded
        case minUnits
        case maxUnits
    }

    func explain() -> Explanation {
        var items: [Item] = courses.indices.filter { !courses[$0].optional }.map(Item.course)
        items += constraints.blocked.indices.map(Item.blocked)
        if constraints.openSeatsOnly { items.append(.openSeatsOnly) }
        items += constraints.pinned.map(Item.pinned)
        if !constraints.excluded.isEmpty { items.append(.excluded) }
        if constraints.minUnits != nil { items.append(.minUnits) }
        if constraints.maxUnits != nil { items.append(.maxUnits) }

        var core = items
        if fails(core) {
            for item in items where core.count > 1 {
                let without = core.filter { $0 != item }
                if fails(without) { core = without }
            }
            core = smaller(than: core, among: items) ?? core
        }
        return describe(core)
    }

    /// A failing subset smaller than `core`, trying sizes from one up.
    private func smaller(than core: [Item], among items: [Item]) -> [Item]? {
        var checks = 0
        for size in 1..<max(1, core.count) {
            var found: [Item]?
            combinations(of: items, size: size) { subset in
                checks += 1
                if checks > Self.subsetChecks { return false }
                if fails(subset) { found = subset; return false }
                return true
            }
            if let found { return found }
            if checks > Self.subsetChecks { return nil }
        }
        return nil
    }

    /// Calls `body` with each `size`-subset of `items` in order until it returns false.
    private func combinations(of items: [Item], size: Int, _ body: ([Item]) -> Bool) {
        var indices = Array(0..<size)
        guard size <= items.count else { return }
        while true {
            if !body(indices.map { items[$0] }) { return }
            var position = size - 1
            while position >= 0, indices[position] == items.count - size + position { position -= 1 }
            if position < 0 { return }
            indices[position] += 1
            for next in (position + 1)..<size { indices[next] = indices[next - 1] + 1 }
        }
    }

    /// Whether the required courses among `items`, under the constraints among `items`, have no
    /// schedule. A check that runs out of budget counts as satisfiable, so the explanation never
    /// names a set that was not proven to fail.
    func fails(_ items: [Item]) -> Bool {
        let chosen = items.compactMap { if case .course(let position) = $0 { courses[position] } else { nil } }
        guard !chosen.isEmpty || items.contains(.minUnits) else { return false }
        var blocked = WeekMask()
        var pinned: Set<Int64> = []
        for item in items {
            if case .blocked(let index) = item { blocked = blocked.union(constraints.blocked[index].mask) }
            if case .pinned(let id) = item { pinned.insert(id) }
        }
        let builder = CandidateBuilder(
            ratings: ratings, blockedMask: blocked, openSeatsOnly: items.contains(.openSeatsOnly), pinned: pinned,
            excluded: items.contains(.excluded) ? Set(constraints.excluded) : []
        )
        let ranking = Ranking(weights: weights, referenceUnits: chosen.map(\.units).reduce(0, +))
        var prepared: [PreparedCourse] = []
        for (position, course) in chosen.enumerated() {
            guard case .success(let candidates) = builder.candidates(for: course) else { return true }
            prepared.append(PreparedCourse(position: position, course: course, candidates: candidates, ratings: ratings, ranking: ranking))
        }
        let slots = SearchSpace(
            courses: prepared, target: prepared.count,
            minUnits: items.contains(.minUnits) ? constraints.minUnits : nil,
            maxUnits: items.contains(.maxUnits) ? constraints.maxUnits : nil,
            counting: true
        )
        var check = FeasibilityCheck(space: slots, budget: budget)
        return check.run() == false
    }

    private func describe(_ core: [Item]) -> Explanation {
        var names: [String] = []
        var explained: [ExplainedConstraint] = []
        for item in core {
            switch item {
            case .course(let position): names.append(courses[position].label)
            case .blocked(let index):
                let time = constraints.blocked[index]
                explained.append(ExplainedConstraint(kind: "blocked", description: "the blocked time \(time.label)", blocked: time))
            case .openSeatsOnly:
                explained.append(ExplainedConstraint(kind: "openSeatsOnly", description: "only sections with open seats"))
            case .pinned(let id):
                explained.append(ExplainedConstraint(kind: "pinned", description: "the pinned class \(id)", classID: id))
            case .excluded:
                explained.append(ExplainedConstraint(kind: "excluded", description: "the excluded classes"))
            case .minUnits:
                let units = constraints.minUnits ?? 0
                explained.append(ExplainedConstraint(kind: "minUnits", description: "at least \(Self.format(units)) units", units: units))
            case .maxUnits:
                let units = constraints.maxUnits ?? 0
                explained.append(ExplainedConstraint(kind: "maxUnits", description: "at most \(Self.format(units)) units", units: units))
            }
        }
        let parts = names + explained.map(\.description)
        let message: String
        if names.count == 2, explained.isEmpty {
            message = "\(names[0]) and \(names[1]) cannot both fit: every way to take one overlaps every way to take the other."
        } else if names.count == 1, explained.isEmpty {
            message = "\(names[0]) has no combination of sections that fits together."
        } else if parts.isEmpty {
            message = "No schedule fits."
        } else {
            message = "No schedule satisfies all of these together: \(Self.list(parts)). Dropping any one of them makes a schedule possible."
        }
        return Explanation(message: message, courses: names, constraints: explained)
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    static func list(_ parts: [String]) -> String {
        guard parts.count > 1 else { return parts.first ?? "" }
        return parts.dropLast().joined(separator: ", ") + " and " + parts[parts.count - 1]
    }
}

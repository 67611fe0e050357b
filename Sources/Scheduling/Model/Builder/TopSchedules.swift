import Catalog
/// The best `limit` schedules by branch and bound: a branch whose optimistic bound (points
/// already placed, the best candidate left for each open course, and the week-shape parts as
/// good as they can still get) cannot beat the worst kept schedule is never entered. Groups
/// of interchangeable candidates are tried best first, so good schedules are found early and
/// prune hard. Among schedules of equal score, those found first stay (the search order is
/// fixed: better groups first, then lower class ids), so answers are deterministic. After
/// `budget` nodes the search stops with the best found (`complete` false).
struct TopSchedules {
    let space: SearchSpace
    let ranking: Ranking
    let limit: Int
    let budget: Int

    /// Best first.
    private(set) var kept: [Placement] = []
    private(set) var complete = true
    private var nodes = 0

    init(space: SearchSpace, ranking: Ranking, limit: Int, budget: Int) {
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

    private mutating func visit(_ partial: SearchSpace.Partial, _ open: [SearchSpace.Open]) {
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
    func bound(_ partial: SearchSpace.Partial, _ open: [SearchSpace.Open]) -> Int64 {
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
    private mutating func keep(_ partial: SearchSpace.Partial) {
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

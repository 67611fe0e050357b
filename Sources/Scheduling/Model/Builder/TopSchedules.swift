import Catalog
/// The best `limit` schedules by branch and bound: a branch whose optimistic bound (points
/// already placed, the best candidate left for each open course, and the week-shape parts as
/// good as they can still get) cannot beat the worst kept schedule is never entered. Groups
/// of interchangeable candidates are tried best first, so good schedules are found early and
/// prune hard. Among schedules of equal score, those found first stay (the search order is
/// fixed: better groups first, then lower class ids), so answers are deterministic. After
/// `budget` nodes the search stops with the best found (`complete` false).
///
/// Two bounds (``RankingBound``): the classic one prunes a branch that cannot score *above*
/// the last kept schedule, as it always has; the order of the search and that rule decide
/// which of several schedules of the last kept score are found, so neither may change. The
/// lookahead, tighter, prunes only a branch that cannot even *reach* that score: nothing in it
/// would be kept or would change the threshold, so the answer is the same as without it, with
/// far fewer nodes (it is exact with one course left, where most of the nodes were).
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
        let path = SearchPath(space)
        visit(path, RankingBound(path: path, ranking: ranking), 0)
    }

    private var threshold: Int64? { kept.count == limit ? kept.last?.score : nil }

    private mutating func visit(_ path: SearchPath, _ bound: RankingBound, _ level: Int) {
        guard complete else { return }
        nodes += 1
        if nodes > budget { complete = false; return }
        guard path.viable(level) else { return }
        if path.placed[level] == space.target {
            if space.unitsHold(path.units[level]) { keep(path, level) }
            return
        }
        if let threshold {
            // The classic bound prunes at equality, as it always has: which schedules of the
            // last kept score are found depends on it, and answers must not change.
            let parts = bound.classic(level)
            if parts.total <= threshold { return }
            // The lookahead prunes only below the threshold: nothing there can make the cut
            // or change what is kept, so the answer is the same with or without it.
            if bound.lookaheadIsBelow(level, parts, threshold) { return }
        }
        let slot = path.pick(level)
        let course = path.course(slot, at: level)
        let words = path.options + level * path.words + space.tables.wordStart[course]
        for word in 0..<space.tables.wordCounts[course] {
            var bits = words[word]
            while bits != 0 {
                let group = word * 64 + bits.trailingZeroBitCount
                bits &= bits - 1
                guard path.place(group, slot: slot, at: level) else { continue }
                visit(path, bound, level + 1)
                if !complete { return }
            }
        }
        path.choice[space.courses[course].position] = -1
        if path.optional[course] {
            path.skip(slot, at: level)
            visit(path, bound, level + 1)
        }
    }

    /// Keeps the schedules a leaf stands for: every combination of its groups' members, all of
    /// the same score, smallest class ids first, as long as they still make the cut.
    private mutating func keep(_ path: SearchPath, _ level: Int) {
        let shape = ranking.shapePoints(path.shape(level))
        let score = path.quality[level] + shape.total
        // Below the last kept score nothing it stands for makes the cut.
        if kept.count == limit, let last = kept.last, score < last.score { return }
        let groups = Array(UnsafeBufferPointer(start: path.choice, count: path.courseCount))
        let members: [[Int]] = groups.enumerated().map { position, group in
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
            let placement = Placement(choice: choice, score: score, quality: path.quality[level], shape: shape, key: key)
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

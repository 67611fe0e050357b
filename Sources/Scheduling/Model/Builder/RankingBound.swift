/// The optimistic bounds of the ranking search at one level of a ``SearchPath``: the most any
/// schedule below that node can score. Nothing here allocates.
struct RankingBound {
    let path: SearchPath
    let tables: GroupTables
    let ranking: Ranking

    init(path: SearchPath, ranking: Ranking) {
        self.path = path
        tables = path.tables
        self.ranking = ranking
    }

    /// The branch and bound's bound since its first version, value for value: the points
    /// already placed; for each open course its best group's points (at least 0); the days
    /// every group of each open required course shares, the latest of their earliest starts
    /// and the earliest of their latest ends; and the idle time of the placed classes less
    /// what each open course could fill at most.
    func placedAndBest(_ level: Int) -> Int64 {
        let path = path, tables = tables
        var quality = path.quality[level]
        var days = path.days[level]
        var earliest = path.earliest[level]
        var latest = path.latest[level]
        // Idle time only shrinks where a later class lands in it.
        let idleSlots = path.idleSlots(level)
        var fillable = 0
        let row = level * path.courseCount
        for slot in 0..<path.openCount[level] {
            let course = path.openCourse[row + slot]
            let base = tables.groupBase[course]
            // Options are kept in group order, best quality first.
            if let first = path.firstOption(of: course, at: level) { quality += max(0, tables.quality[base + first]) }
            if idleSlots > fillable {
                var most = 0
                path.forEachOption(of: course, at: level) { most = max(most, path.idleOverlap(base + $0, at: level)) }
                fillable += most
            }
            guard !path.optional[course], path.optionCount[row + slot] > 0 else { continue }
            // Whatever the course places, it brings the days all its options share, starts no
            // later than its latest-starting option and ends no earlier than its earliest-ending one.
            var shared: UInt8 = 0x7F
            var latestStart = Int.min, earliestEnd = Int.max
            var startUnknown = false, endUnknown = false
            path.forEachOption(of: course, at: level) { group in
                shared &= tables.days[base + group]
                let start = tables.earliestStart[base + group], end = tables.latestEnd[base + group]
                if start == Int.max { startUnknown = true } else { latestStart = max(latestStart, start) }
                if end == Int.min { endUnknown = true } else { earliestEnd = min(earliestEnd, end) }
            }
            days |= shared
            if !startUnknown { earliest = min(earliest, latestStart) }
            if !endUnknown { latest = max(latest, earliestEnd) }
        }
        let leastIdle = max(0, idleSlots - fillable) * WeekMask.slotMinutes
        return quality + ranking.shapeBound(
            days: days.nonzeroBitCount, earliest: earliest == Int.max ? nil : earliest, latest: latest == Int.min ? nil : latest,
            gapMinutes: leastIdle
        )
    }
}

/// The optimistic bounds of the ranking search at one level of a ``SearchPath``: the most any
/// schedule below that node can score.
///
/// ``classic(_:)`` is the bound the search has always pruned with (at equality with the last
/// kept score, which decides which ties are found, so it must not change).
/// ``lookaheadIsBelow(_:_:_:)`` is tighter and prunes only strictly below that score, where
/// nothing can make the cut: adding it changes no answer. Nothing here allocates per node;
/// the week-shape points are looked up in tables filled on first use.
final class RankingBound {
    let path: SearchPath
    let tables: GroupTables
    let ranking: Ranking

    /// What ``classic(_:)`` works out, for ``lookaheadIsBelow(_:_:_:)`` to refine.
    struct Parts {
        /// Points placed plus each open course's best group's.
        var quality: Int64
        /// ``Weekdays`` raw value: days placed plus those every group of an open required course has.
        var days: UInt8
        /// Minutes, `Int.max` / `Int.min` when unknown.
        var earliest: Int
        var latest: Int
        /// Idle slots of what is placed, and the most the open courses could fill (the sum
        /// of what each could fill by itself).
        var idleSlots: Int
        var fillable: Int
        /// The whole bound.
        var total: Int64
    }

    /// Per slot of the level last bounded: the most idle slots one group of the course could
    /// fill, and the most slots one group of it occupies.
    private let fillable: UnsafeMutablePointer<Int>
    private let widest: UnsafeMutablePointer<Int>
    /// Per slot of the level last bounded: the course's best group's points (at least 0).
    private let bestQuality: UnsafeMutablePointer<Int64>
    /// Day points by number of days (0...7).
    private let dayPoints: [Int64]
    /// Gap points by idle slots (0...``gapSlotsCap``; more count as the cap), start and end
    /// points by minute (0...1440); `Int64.min` until worked out.
    private let gapPoints: UnsafeMutablePointer<Int64>
    private let startPoints: UnsafeMutablePointer<Int64>
    private let endPoints: UnsafeMutablePointer<Int64>
    /// From this many idle slots on, the gap part is 0 (``Ranking/gapScaleMinutes``).
    private let gapSlotsCap = Int(Ranking.gapScaleMinutes) / WeekMask.slotMinutes

    init(path: SearchPath, ranking: Ranking) {
        self.path = path
        tables = path.tables
        self.ranking = ranking
        dayPoints = (0...7).map { ranking.dayPoints(days: $0) }
        fillable = .allocate(capacity: max(1, path.courseCount))
        fillable.initialize(repeating: 0, count: max(1, path.courseCount))
        widest = .allocate(capacity: max(1, path.courseCount))
        widest.initialize(repeating: 0, count: max(1, path.courseCount))
        bestQuality = .allocate(capacity: max(1, path.courseCount))
        bestQuality.initialize(repeating: 0, count: max(1, path.courseCount))
        gapPoints = .allocate(capacity: gapSlotsCap + 1)
        gapPoints.initialize(repeating: .min, count: gapSlotsCap + 1)
        startPoints = .allocate(capacity: 1441)
        startPoints.initialize(repeating: .min, count: 1441)
        endPoints = .allocate(capacity: 1441)
        endPoints.initialize(repeating: .min, count: 1441)
    }

    deinit {
        for table in [gapPoints, startPoints, endPoints] { table.deallocate() }
        fillable.deallocate()
        widest.deallocate()
        bestQuality.deallocate()
    }

    /// ``Ranking/gapPoints(gapMinutes:)`` for some idle slots, remembered.
    @inline(__always)
    private func gapPoints(idleSlots: Int) -> Int64 {
        let index = min(idleSlots, gapSlotsCap)
        if gapPoints[index] == .min { gapPoints[index] = ranking.gapPoints(gapMinutes: index * WeekMask.slotMinutes) }
        return gapPoints[index]
    }

    /// ``Ranking/startPoints(earliest:)``, remembered by minute.
    @inline(__always)
    private func startPoints(_ earliest: Int) -> Int64 {
        guard earliest >= 0, earliest <= 1440 else { return ranking.startPoints(earliest: earliest == Int.max ? nil : earliest) }
        if startPoints[earliest] == .min { startPoints[earliest] = ranking.startPoints(earliest: earliest) }
        return startPoints[earliest]
    }

    /// ``Ranking/endPoints(latest:)``, remembered by minute.
    @inline(__always)
    private func endPoints(_ latest: Int) -> Int64 {
        guard latest >= 0, latest <= 1440 else { return ranking.endPoints(latest: latest == Int.min ? nil : latest) }
        if endPoints[latest] == .min { endPoints[latest] = ranking.endPoints(latest: latest) }
        return endPoints[latest]
    }

    /// The branch and bound's bound since its first version, value for value: the points
    /// already placed; for each open course its best group's points (at least 0); the days
    /// every group of each open required course shares, the latest of their earliest starts
    /// and the earliest of their latest ends; and the idle time of the placed classes less
    /// what each open course could fill at most.
    func classic(_ level: Int) -> Parts {
        let path = path, tables = tables
        var quality = path.quality[level]
        var days = path.days[level]
        var earliest = path.earliest[level]
        var latest = path.latest[level]
        // Idle time only shrinks where a later class lands in it.
        let idleSlots = path.idleSlots(level)
        var fillableInAll = 0
        let row = level * path.courseCount
        for slot in 0..<path.openCount[level] {
            let course = path.openCourse[row + slot]
            let base = tables.groupBase[course]
            // Options are kept in group order, best quality first.
            let best = path.firstOption(of: course, at: level).map { max(0, tables.quality[base + $0]) } ?? 0
            bestQuality[slot] = best
            quality += best
            // Whatever a required course places, it brings the days all its options share,
            // starts no later than its latest-starting option and ends no earlier than its
            // earliest-ending one.
            var most = 0, wide = 0
            var shared: UInt8 = 0x7F
            var latestStart = Int.min, earliestEnd = Int.max
            var startUnknown = false, endUnknown = false
            path.forEachOption(of: course, at: level) { group in
                let global = base + group
                if idleSlots > 0 { most = max(most, path.idleOverlap(global, at: level)) }
                wide = max(wide, tables.slots[global])
                shared &= tables.days[global]
                let start = tables.earliestStart[global], end = tables.latestEnd[global]
                if start == Int.max { startUnknown = true } else { latestStart = max(latestStart, start) }
                if end == Int.min { endUnknown = true } else { earliestEnd = min(earliestEnd, end) }
            }
            fillable[slot] = most
            widest[slot] = wide
            fillableInAll += most
            guard !path.optional[course], path.optionCount[row + slot] > 0 else { continue }
            days |= shared
            if !startUnknown { earliest = min(earliest, latestStart) }
            if !endUnknown { latest = max(latest, earliestEnd) }
        }
        let total = quality + gapPoints(idleSlots: max(0, idleSlots - fillableInAll)) + dayPoints[days.nonzeroBitCount]
            + startPoints(earliest) + endPoints(latest)
        return Parts(quality: quality, days: days, earliest: earliest, latest: latest, idleSlots: idleSlots, fillable: fillableInAll, total: total)
    }

    /// Whether a bound at most `parts.total` (from ``classic(_:)`` at the same level) is below
    /// `threshold`. It looks one course ahead: whichever group `o` an open required course
    /// takes, the schedule has `o`'s points instead of the course's best; the other open
    /// courses' best groups among those that fit with `o` (a required course with none rules
    /// `o` out); `o`'s days, start and end on top of what `parts` counts (the course's own
    /// share there is implied by each of its groups); and at least the idle time left once `o`
    /// is placed less what the other open courses can fill: each of them at most what it could
    /// fill before plus the idle time `o` adds, and never more than its largest group. The
    /// best `o` bounds every schedule below, so if some course's best `o` is below `threshold`,
    /// nothing below can reach it. With one course left this is that course's best schedule,
    /// give or take rounding to slots.
    ///
    /// A course stops being tried at its first group that reaches `threshold`, and the fitting
    /// groups of the other courses are looked up only for groups that reach it without them.
    func lookaheadIsBelow(_ level: Int, _ parts: Parts, _ threshold: Int64) -> Bool {
        let path = path, tables = tables
        let row = level * path.courseCount, open = path.openCount[level]
        let first = path.dayFirst + level * 7, last = path.dayLast + level * 7, busy = path.dayBusy + level * 7
        courses: for slot in 0..<open {
            let course = path.openCourse[row + slot]
            guard !path.optional[course], path.optionCount[row + slot] > 0 else { continue }
            let base = tables.groupBase[course]
            // Points placed and the other courses' best.
            let others = parts.quality - bestQuality[slot]
            let words = path.options + level * path.words + tables.wordStart[course]
            for word in 0..<tables.wordCounts[course] {
                var bits = words[word]
                while bits != 0 {
                    let global = base + word * 64 + bits.trailingZeroBitCount
                    bits &= bits - 1
                    let value = shapeAndOwnPoints(global, slot: slot, level: level, parts: parts, first: first, last: last, busy: busy)
                    if others + value < threshold { continue }
                    guard let fitting = othersBestFitting(global, slot: slot, level: level) else { continue }
                    if fitting + value >= threshold { continue courses }
                }
            }
            return true
        }
        return false
    }

    /// A group's own points and the week-shape points with it placed (see
    /// ``lookaheadIsBelow(_:_:_:)``).
    @inline(__always)
    private func shapeAndOwnPoints(
        _ global: Int, slot: Int, level: Int, parts: Parts,
        first: UnsafePointer<Int>, last: UnsafePointer<Int>, busy: UnsafePointer<Int>
    ) -> Int64 {
        let tables = tables
        // The idle slots once the group is placed: its days' spans widen, its slots fill.
        var idleAfter = parts.idleSlots
        for index in tables.daySpanStart[global]..<tables.daySpanStart[global + 1] {
            let span = tables.daySpans[index], day = span.day
            let before = last[day] >= 0 ? last[day] - first[day] + 1 - busy[day] : 0
            let after = max(last[day], span.last) - min(first[day], span.first) + 1 - busy[day] - span.busy
            idleAfter += after - before
        }
        let added = idleAfter - parts.idleSlots + path.idleOverlap(global, at: level)
        // With nothing added, each other course fills what it could before (never more than
        // its widest group).
        var filled = parts.fillable - fillable[slot]
        if added > 0 {
            filled = 0
            for other in 0..<path.openCount[level] where other != slot { filled += min(fillable[other] + added, widest[other]) }
        }
        return max(0, tables.quality[global]) + gapPoints(idleSlots: max(0, idleAfter - filled))
            + dayPoints[(parts.days | tables.days[global]).nonzeroBitCount]
            + startPoints(min(parts.earliest, tables.earliestStart[global]))
            + endPoints(max(parts.latest, tables.latestEnd[global]))
    }

    /// Points placed plus each other open course's best group (at least 0) among those that
    /// fit with group `global`; nil when a required course has none.
    private func othersBestFitting(_ global: Int, slot: Int, level: Int) -> Int64? {
        let path = path, tables = tables
        let row = level * path.courseCount
        let compatible = tables.compatibleRow(global)
        var quality = path.quality[level]
        for other in 0..<path.openCount[level] where other != slot {
            let course = path.openCourse[row + other]
            if tables.allUnscheduled[course] {
                quality += bestQuality[other]
                continue
            }
            guard let fitting = path.firstOption(of: course, at: level, within: compatible) else {
                if path.optional[course] { continue }
                return nil
            }
            quality += max(0, tables.quality[tables.groupBase[course] + fitting])
        }
        return quality
    }
}

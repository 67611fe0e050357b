import Catalog

/// The candidate groups of a search's courses laid out flat for the search, and which groups of
/// every course fit with each group (pairwise compatibility bit sets).
///
/// Groups are numbered globally, course after course (``groupBase``). A set of a course's
/// groups is a run of 64-bit words; an *option set* holds one such run per course, at
/// ``wordStart`` (``totalWords`` words in all), so forward checking after a placement is a word
/// AND per open course instead of a ``WeekMask`` test per remaining group.
///
/// A group's compatibility row is an option set of every group that shares no slot with it. Rows
/// are built the first time their group is placed and kept while they fit in
/// ``rowCacheWords``; past that they are built into a scratch row on every use, so a request
/// with huge courses costs memory in proportion to what the search visits, never the square
/// of the group count.
final class GroupTables {
    /// At most this many words (8 bytes each) of compatibility rows are kept by default: 16 MiB.
    static let defaultRowCacheWords = 1 << 21
    /// At most this many words of compatibility rows are kept.
    let rowCacheWords: Int

    let courseCount: Int
    /// Global number of each course's first group.
    let groupBase: FlatBuffer<Int>
    let groupCounts: FlatBuffer<Int>
    /// First word of each course's run in an option set, and the run's length.
    let wordStart: FlatBuffer<Int>
    let wordCounts: FlatBuffer<Int>
    let totalWords: Int
    /// Whether no group of the course occupies a slot: nothing filters its options.
    let allUnscheduled: FlatBuffer<Bool>

    // Per group, by global number.
    let groupCount: Int
    let quality: FlatBuffer<Int64>
    let weight: FlatBuffer<Int>
    /// Occupied slots.
    let slots: FlatBuffer<Int>
    /// ``Weekdays`` raw values.
    let days: FlatBuffer<UInt8>
    /// Minutes after midnight; `Int.max` when the group has no timed meeting.
    let earliestStart: FlatBuffer<Int>
    /// Minutes after midnight; `Int.min` when the group has no timed meeting.
    let latestEnd: FlatBuffer<Int>
    /// Each group's ``WeekMask`` words (32 per group), and which of them are not zero
    /// (`maskLanes[maskLaneStart[g]..<maskLaneStart[g + 1]]`): for the compatibility rows only,
    /// the search itself works from runs and spans.
    let maskWords: FlatBuffer<UInt64>
    let maskLaneStart: FlatBuffer<Int>
    let maskLanes: FlatBuffer<Int>
    /// Each group's runs of occupied slots, `runs[runStart[g]..<runStart[g + 1]]` (none for a
    /// group without timed meetings).
    let runStart: FlatBuffer<Int>
    let runs: FlatBuffer<SlotRun>
    /// Each group's occupied days, `daySpans[daySpanStart[g]..<daySpanStart[g + 1]]`.
    let daySpanStart: FlatBuffer<Int>
    let daySpans: FlatBuffer<DaySpan>

    /// Where each group's row starts in ``rows``; -1 until it is built.
    private let rowStart: UnsafeMutablePointer<Int>
    /// Built rows, one after another (`rowsUsed` words of `rowsCapacity`), then one scratch row
    /// for groups whose rows are not kept.
    private var rows: UnsafeMutablePointer<UInt64>
    private var rowsUsed = 0
    private var rowsCapacity: Int

    /// `groups(c)` gives course `c`'s groups; `unscheduled(c)` whether none of them has a slot.
    init(
        courseCount: Int, groups: (Int) -> [CandidateGroup], unscheduled: (Int) -> Bool,
        rowCacheWords: Int = GroupTables.defaultRowCacheWords
    ) {
        self.courseCount = courseCount
        self.rowCacheWords = rowCacheWords
        var groupBase: [Int] = [], groupCounts: [Int] = [], wordStart: [Int] = [], wordCounts: [Int] = []
        var quality: [Int64] = [], weight: [Int] = [], slots: [Int] = [], days: [UInt8] = [], earliestStart: [Int] = [], latestEnd: [Int] = []
        var masks: [WeekMask] = [], runStart: [Int] = [], runs: [SlotRun] = [], daySpanStart: [Int] = [], daySpans: [DaySpan] = []
        var allUnscheduled: [Bool] = []
        var words = 0
        for course in 0..<courseCount {
            let list = groups(course)
            groupBase.append(quality.count)
            groupCounts.append(list.count)
            wordStart.append(words)
            wordCounts.append((list.count + 63) / 64)
            words += (list.count + 63) / 64
            allUnscheduled.append(unscheduled(course))
            for group in list {
                quality.append(group.quality)
                weight.append(group.weight)
                slots.append(group.slots)
                days.append(group.days.rawValue)
                earliestStart.append(group.earliestStart ?? Int.max)
                latestEnd.append(group.latestEnd ?? Int.min)
                masks.append(group.mask)
                runStart.append(runs.count)
                runs += group.mask.slotRuns
                daySpanStart.append(daySpans.count)
                for day in 0..<7 {
                    let span = group.mask.daySpan(day)
                    if span.first >= 0 { daySpans.append(DaySpan(day: day, first: span.first, last: span.last, busy: span.busy)) }
                }
            }
        }
        runStart.append(runs.count)
        daySpanStart.append(daySpans.count)
        self.groupBase = FlatBuffer(groupBase)
        self.groupCounts = FlatBuffer(groupCounts)
        self.wordStart = FlatBuffer(wordStart)
        self.wordCounts = FlatBuffer(wordCounts)
        self.totalWords = words
        self.allUnscheduled = FlatBuffer(allUnscheduled)
        groupCount = quality.count
        self.quality = FlatBuffer(quality)
        self.weight = FlatBuffer(weight)
        self.slots = FlatBuffer(slots)
        self.days = FlatBuffer(days)
        self.earliestStart = FlatBuffer(earliestStart)
        self.latestEnd = FlatBuffer(latestEnd)
        var maskWords: [UInt64] = [], maskLaneStart: [Int] = [], maskLanes: [Int] = []
        for mask in masks {
            maskLaneStart.append(maskLanes.count)
            for lane in 0..<32 {
                maskWords.append(mask.words[lane])
                if mask.words[lane] != 0 { maskLanes.append(lane) }
            }
        }
        maskLaneStart.append(maskLanes.count)
        self.maskWords = FlatBuffer(maskWords)
        self.maskLaneStart = FlatBuffer(maskLaneStart)
        self.maskLanes = FlatBuffer(maskLanes)
        self.runStart = FlatBuffer(runStart)
        self.runs = FlatBuffer(runs)
        self.daySpanStart = FlatBuffer(daySpanStart)
        self.daySpans = FlatBuffer(daySpans)
        rowStart = .allocate(capacity: max(1, groupCount))
        rowStart.initialize(repeating: -1, count: max(1, groupCount))
        rowsCapacity = min(rowCacheWords, max(1, words) * 16)
        rows = .allocate(capacity: rowsCapacity + words)
    }

    deinit {
        rowStart.deallocate()
        rows.deallocate()
        for buffer in [groupBase, groupCounts, wordStart, wordCounts, weight, slots, earliestStart, latestEnd, maskLaneStart, maskLanes, runStart, daySpanStart] {
            buffer.free()
        }
        allUnscheduled.free()
        quality.free()
        days.free()
        maskWords.free()
        runs.free()
        daySpans.free()
    }

    /// Every group of every course: the option set of a search's root.
    func fillAll(_ options: UnsafeMutablePointer<UInt64>) {
        for course in 0..<courseCount {
            let count = groupCounts[course]
            for word in 0..<wordCounts[course] {
                let bits = min(64, count - word * 64)
                options[wordStart[course] + word] = bits == 64 ? ~0 : (1 << UInt64(bits)) - 1
            }
        }
    }

    /// Whether the group occupies no slot (TBA or online): it conflicts with nothing.
    @inline(__always)
    func isUnscheduled(_ group: Int) -> Bool { runStart[group] == runStart[group + 1] }

    /// How many of the group's slots fall within each day's `first[day]...last[day]` (a day
    /// with `last < first` has none).
    @inline(__always)
    func slotsWithin(_ group: Int, first: UnsafePointer<Int>, last: UnsafePointer<Int>) -> Int {
        var count = 0
        for index in runStart[group]..<runStart[group + 1] {
            let run = runs[index]
            let inside = min(run.to, last[run.day] + 1) - max(run.from, first[run.day])
            if inside > 0 { count += inside }
        }
        return count
    }

    /// The groups (of every course) that share no slot with `group`; the bits of the group's
    /// own course and of unscheduled courses are not meaningful. Valid until the next call.
    func compatibleRow(_ group: Int) -> UnsafePointer<UInt64> {
        let start = rowStart[group]
        if start >= 0 { return UnsafePointer(rows + start) }
        if rowsUsed + totalWords > rowsCapacity, rowsCapacity < rowCacheWords {
            // Grow (doubling, up to the cache's size), keeping the scratch row's room at the end.
            let capacity = min(rowCacheWords, rowsCapacity * 2)
            let grown = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity + totalWords)
            grown.initialize(from: rows, count: rowsUsed)
            rows.deallocate()
            rows = grown
            rowsCapacity = capacity
        }
        let row: UnsafeMutablePointer<UInt64>
        if rowsUsed + totalWords <= rowsCapacity {
            row = rows + rowsUsed
            rowStart[group] = rowsUsed
            rowsUsed += totalWords
        } else {
            row = rows + rowsCapacity
        }
        fillRow(group, into: row)
        return UnsafePointer(row)
    }

    private func fillRow(_ group: Int, into row: UnsafeMutablePointer<UInt64>) {
        row.initialize(repeating: 0, count: totalWords)
        let lanes = maskLaneStart[group]..<maskLaneStart[group + 1]
        let mine = maskWords.base + group * 32
        for course in 0..<courseCount {
            let base = groupBase[course]
            for local in 0..<groupCounts[course] {
                let theirs = maskWords.base + (base + local) * 32
                var shared = false
                for index in lanes where mine[maskLanes[index]] & theirs[maskLanes[index]] != 0 {
                    shared = true
                    break
                }
                if !shared { row[wordStart[course] + local / 64] |= 1 << UInt64(local % 64) }
            }
        }
    }
}

/// A group's first and last occupied slot on one day (0 = Monday) and how many it occupies.
struct DaySpan: Sendable {
    var day: Int
    var first: Int
    var last: Int
    var busy: Int
}

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
    /// At most this many words (8 bytes each) of compatibility rows are kept: 16 MiB.
    static let rowCacheWords = 1 << 21

    let courseCount: Int
    /// Global number of each course's first group.
    let groupBase: [Int]
    let groupCounts: [Int]
    /// First word of each course's run in an option set, and the run's length.
    let wordStart: [Int]
    let wordCounts: [Int]
    let totalWords: Int
    /// Whether no group of the course occupies a slot: nothing filters its options.
    let allUnscheduled: [Bool]

    // Per group, by global number.
    let quality: [Int64]
    let weight: [Int]
    /// ``Weekdays`` raw values.
    let days: [UInt8]
    /// Minutes after midnight; `Int.max` when the group has no timed meeting.
    let earliestStart: [Int]
    /// Minutes after midnight; `Int.min` when the group has no timed meeting.
    let latestEnd: [Int]
    let masks: [WeekMask]
    /// The non-zero words of each group's mask (`maskWords[maskWordStart[g]..<maskWordStart[g + 1]]`,
    /// at word positions `maskWordIndex`), so overlaps with another mask touch only those.
    let maskWordStart: [Int]
    let maskWordIndex: [Int]
    let maskWords: [UInt64]

    /// Where each group's row starts in ``rows``; -1 until it is built.
    private let rowStart: UnsafeMutablePointer<Int>
    /// Built rows, one after another (`rowsUsed` words of `rowsCapacity`), then one scratch row
    /// for groups whose rows are not kept.
    private var rows: UnsafeMutablePointer<UInt64>
    private var rowsUsed = 0
    private var rowsCapacity: Int

    /// `groups(c)` gives course `c`'s groups; `unscheduled(c)` whether none of them has a slot.
    init(courseCount: Int, groups: (Int) -> [CandidateGroup], unscheduled: (Int) -> Bool) {
        self.courseCount = courseCount
        var groupBase: [Int] = [], groupCounts: [Int] = [], wordStart: [Int] = [], wordCounts: [Int] = []
        var quality: [Int64] = [], weight: [Int] = [], days: [UInt8] = [], earliestStart: [Int] = [], latestEnd: [Int] = []
        var masks: [WeekMask] = [], maskWordStart: [Int] = [], maskWordIndex: [Int] = [], maskWords: [UInt64] = []
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
                days.append(group.days.rawValue)
                earliestStart.append(group.earliestStart ?? Int.max)
                latestEnd.append(group.latestEnd ?? Int.min)
                masks.append(group.mask)
                maskWordStart.append(maskWords.count)
                for lane in 0..<32 where group.mask.words[lane] != 0 {
                    maskWordIndex.append(lane)
                    maskWords.append(group.mask.words[lane])
                }
            }
        }
        maskWordStart.append(maskWords.count)
        self.groupBase = groupBase
        self.groupCounts = groupCounts
        self.wordStart = wordStart
        self.wordCounts = wordCounts
        self.totalWords = words
        self.allUnscheduled = allUnscheduled
        self.quality = quality
        self.weight = weight
        self.days = days
        self.earliestStart = earliestStart
        self.latestEnd = latestEnd
        self.masks = masks
        self.maskWordStart = maskWordStart
        self.maskWordIndex = maskWordIndex
        self.maskWords = maskWords
        rowStart = .allocate(capacity: max(1, quality.count))
        rowStart.initialize(repeating: -1, count: max(1, quality.count))
        rowsCapacity = min(Self.rowCacheWords, max(1, words) * 16)
        rows = .allocate(capacity: rowsCapacity + words)
    }

    deinit {
        rowStart.deallocate()
        rows.deallocate()
    }

    var groupCount: Int { quality.count }

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

    /// How many slots group `group`'s mask shares with `other` (32 words).
    @inline(__always)
    func overlap(_ group: Int, _ other: UnsafePointer<UInt64>) -> Int {
        var count = 0
        for index in maskWordStart[group]..<maskWordStart[group + 1] {
            count += (maskWords[index] & other[maskWordIndex[index]]).nonzeroBitCount
        }
        return count
    }

    /// The groups (of every course) that share no slot with `group`; the bits of the group's
    /// own course and of unscheduled courses are not meaningful. Valid until the next call.
    func compatibleRow(_ group: Int) -> UnsafePointer<UInt64> {
        let start = rowStart[group]
        if start >= 0 { return UnsafePointer(rows + start) }
        if rowsUsed + totalWords > rowsCapacity, rowsCapacity < Self.rowCacheWords {
            // Grow (doubling, up to the cache's size), keeping the scratch row's room at the end.
            let capacity = min(Self.rowCacheWords, rowsCapacity * 2)
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
        let mask = masks[group]
        for course in 0..<courseCount {
            let base = groupBase[course]
            for local in 0..<groupCounts[course] where !masks[base + local].intersects(mask) {
                row[wordStart[course] + local / 64] |= 1 << UInt64(local % 64)
            }
        }
    }
}

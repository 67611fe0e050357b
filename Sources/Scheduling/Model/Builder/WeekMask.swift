public import Catalog

/// A week as 2,016 five-minute slots (7 days × 288), one bit each: the times a section, a
/// schedule or a blocked period occupies. Two masks conflict when they share a bit, so a
/// conflict check is one vector AND; TBA and online meetings occupy no slot and never conflict.
///
/// A meeting occupies the slots from its start rounded down to the end rounded up, as a
/// half-open interval: a class ending at 10:50 does not clash with one starting at 10:50.
public struct WeekMask: Sendable, Hashable {
    public static let slotMinutes = 5
    public static let slotsPerDay = 1440 / slotMinutes

    /// Slot `s` of day `d` (0 = Monday) is bit `d * 288 + s`: 2,016 bits in 32 words.
    var words: SIMD32<UInt64>

    public init() { words = .zero }

    /// The slots of some meetings (unscheduled ones add nothing).
    public init(meetings: some Sequence<Meeting>) {
        self.init()
        for meeting in meetings where meeting.isScheduled {
            guard let start = meeting.start, let end = meeting.end else { continue }
            insert(days: meeting.days, from: start.minutes, to: end.minutes)
        }
    }

    /// Whole days, or a span of minutes on some days.
    public init(days: Weekdays, from start: Int = 0, to end: Int = 1440) {
        self.init()
        insert(days: days, from: start, to: end)
    }

    /// Marks `[start, end)` minutes on every day in `days`.
    public mutating func insert(days: Weekdays, from start: Int, to end: Int) {
        let first = max(0, start) / Self.slotMinutes
        let last = min(1440, (end + Self.slotMinutes - 1) / Self.slotMinutes) // exclusive
        guard first < last else { return }
        for (dayIndex, day) in Weekdays.ordered.enumerated() where days.contains(day) {
            for slot in first..<last { setBit(day: dayIndex, slot: slot) }
        }
    }

    private mutating func setBit(day: Int, slot: Int) {
        let bit = day * Self.slotsPerDay + slot
        words[bit / 64] |= 1 << UInt64(bit % 64)
    }


    public var isEmpty: Bool { words == .zero }

    /// Whether the two share any slot.
    @inline(__always)
    public func intersects(_ other: WeekMask) -> Bool { (words & other.words) != .zero }

    @inline(__always)
    public func union(_ other: WeekMask) -> WeekMask {
        var result = self
        result.words |= other.words
        return result
    }

    /// How many slots the two share.
    public func overlapCount(_ other: WeekMask) -> Int {
        let both = words & other.words
        var count = 0
        for lane in 0..<32 { count += both[lane].nonzeroBitCount }
        return count
    }

    /// How many slots are occupied.
    public var slotCount: Int { overlapCount(self) }

    /// The free slots between the first and last occupied slot of each day: the idle time a
    /// later class could fill.
    public var gaps: WeekMask {
        var result = WeekMask()
        for day in 0..<7 {
            let span = daySpan(day)
            guard span.first >= 0, span.last > span.first else { continue }
            result.insertBits(from: day * Self.slotsPerDay + span.first, through: day * Self.slotsPerDay + span.last)
        }
        result.words &= ~words
        return result
    }

    /// Sets bits `low...high`.
    private mutating func insertBits(from low: Int, through high: Int) {
        var bit = low
        while bit <= high {
            let offset = bit % 64
            let width = min(64 - offset, high - bit + 1)
            let run: UInt64 = width == 64 ? ~0 : ((1 << UInt64(width)) - 1)
            words[bit / 64] |= run << UInt64(offset)
            bit += width
        }
    }

    /// The first and last occupied slot of a day (-1 when none) and how many are occupied,
    /// walking the day's bits word by word with the neighbouring days' bits masked off.
    func daySpan(_ day: Int) -> (first: Int, last: Int, busy: Int) {
        let base = day * Self.slotsPerDay
        var first = -1, last = -1, busy = 0
        var bit = base
        let end = base + Self.slotsPerDay
        while bit < end {
            let offset = bit % 64
            let width = min(64 - offset, end - bit)
            var word = words[bit / 64] >> UInt64(offset)
            if width < 64 { word &= (1 << UInt64(width)) - 1 }
            if word != 0 {
                let local = bit - base
                if first < 0 { first = local + word.trailingZeroBitCount }
                last = local + 63 - word.leadingZeroBitCount
                busy += word.nonzeroBitCount
            }
            bit += width
        }
        return (first, last, busy)
    }

    /// The runs of consecutive occupied slots, Monday first and earliest first within a day.
    var slotRuns: [SlotRun] {
        var runs: [SlotRun] = []
        for lane in 0..<32 {
            var bits = words[lane]
            while bits != 0 {
                let bit = lane * 64 + bits.trailingZeroBitCount
                bits &= bits - 1
                let day = bit / Self.slotsPerDay, slot = bit % Self.slotsPerDay
                if let last = runs.last, last.day == day, last.to == slot {
                    runs[runs.count - 1].to += 1
                } else {
                    runs.append(SlotRun(day: day, from: slot, to: slot + 1))
                }
            }
        }
        return runs
    }

    /// The shape of the week this mask describes, for ranking: days used, earliest start,
    /// latest end and the idle minutes between classes on the same day.
    public var shape: WeekShape {
        var shape = WeekShape()
        for day in 0..<7 {
            let (first, last, busy) = daySpan(day)
            guard first >= 0 else { continue }
            shape.days += 1
            shape.earliestStart = min(shape.earliestStart ?? Int.max, first * Self.slotMinutes)
            shape.latestEnd = max(shape.latestEnd ?? Int.min, (last + 1) * Self.slotMinutes)
            shape.gapMinutes += ((last - first + 1) - busy) * Self.slotMinutes
        }
        return shape
    }
}

/// Consecutive occupied slots `from..<to` of one day (0 = Monday).
struct SlotRun: Sendable, Equatable {
    var day: Int
    var from: Int
    var to: Int
}

/// What a week looks like to a student: how many days on campus, how early, how late, and
/// how much waiting between classes.
public struct WeekShape: Sendable, Equatable {
    public var days = 0
    /// Minutes after midnight of the earliest class of the week; nil with no timed class.
    public var earliestStart: Int?
    /// Minutes after midnight of the latest end of the week; nil with no timed class.
    public var latestEnd: Int?
    /// Idle minutes between the first and last class of each day, summed over the week.
    public var gapMinutes = 0

    public init() {}
}

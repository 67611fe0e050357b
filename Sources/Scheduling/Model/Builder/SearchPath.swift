import Catalog

/// The partial schedules along a depth-first search's current branch, one *level* per node:
/// level 0 is the root, and placing or leaving out a course at level `d` writes level `d + 1`.
/// Each level holds the open courses (not placed, not left out) with their compatible groups as
/// option sets (``GroupTables``) and what has been placed so far. Everything lives in buffers
/// allocated once per search, so a node allocates nothing.
///
/// At a level, open courses are addressed by *slot* (their position in the level's list, in
/// request order).
final class SearchPath {
    let space: SearchSpace
    let tables: GroupTables
    let courseCount: Int
    let words: Int

    /// Option sets, `words` per level.
    let options: UnsafeMutablePointer<UInt64>
    /// Open courses per level (`courseCount` entries each, `openCount[d]` used), and how many
    /// groups each still has.
    let openCourse: UnsafeMutablePointer<Int>
    let optionCount: UnsafeMutablePointer<Int>
    let openCount: UnsafeMutablePointer<Int>
    /// What has been placed, per level. The slots are kept as each day's first and last occupied
    /// slot (``noSlot`` and -1 for a free day) and its count of occupied slots, 7 entries per
    /// level: placed groups never share a slot (forward checking), so these are exactly what the
    /// union of their masks has, and placing a group only widens a few days' spans.
    let dayFirst: UnsafeMutablePointer<Int>
    let dayLast: UnsafeMutablePointer<Int>
    let dayBusy: UnsafeMutablePointer<Int>
    let placed: UnsafeMutablePointer<Int>
    let units: UnsafeMutablePointer<Double>
    let quality: UnsafeMutablePointer<Int64>
    /// ``Weekdays`` raw values.
    let days: UnsafeMutablePointer<UInt8>
    /// `Int.max` / `Int.min` while nothing timed is placed.
    let earliest: UnsafeMutablePointer<Int>
    let latest: UnsafeMutablePointer<Int>
    /// The group placed for each course in request order (-1 when none), along the branch.
    let choice: UnsafeMutablePointer<Int>
    /// Whether each course is optional, and its units.
    let optional: [Bool]
    let courseUnits: [Double]

    init(_ space: SearchSpace) {
        self.space = space
        tables = space.tables
        courseCount = space.courses.count
        words = max(1, tables.totalWords)
        let levels = courseCount + 1
        options = .allocate(capacity: levels * words)
        options.initialize(repeating: 0, count: levels * words)
        openCourse = .allocate(capacity: levels * max(1, courseCount))
        openCourse.initialize(repeating: 0, count: levels * max(1, courseCount))
        optionCount = .allocate(capacity: levels * max(1, courseCount))
        optionCount.initialize(repeating: 0, count: levels * max(1, courseCount))
        openCount = .allocate(capacity: levels)
        openCount.initialize(repeating: 0, count: levels)
        dayFirst = .allocate(capacity: levels * 7)
        dayFirst.initialize(repeating: Self.noSlot, count: levels * 7)
        dayLast = .allocate(capacity: levels * 7)
        dayLast.initialize(repeating: -1, count: levels * 7)
        dayBusy = .allocate(capacity: levels * 7)
        dayBusy.initialize(repeating: 0, count: levels * 7)
        placed = .allocate(capacity: levels)
        placed.initialize(repeating: 0, count: levels)
        units = .allocate(capacity: levels)
        units.initialize(repeating: 0, count: levels)
        quality = .allocate(capacity: levels)
        quality.initialize(repeating: 0, count: levels)
        days = .allocate(capacity: levels)
        days.initialize(repeating: 0, count: levels)
        earliest = .allocate(capacity: levels)
        earliest.initialize(repeating: Int.max, count: levels)
        latest = .allocate(capacity: levels)
        latest.initialize(repeating: Int.min, count: levels)
        choice = .allocate(capacity: max(1, courseCount))
        choice.initialize(repeating: -1, count: max(1, courseCount))
        optional = space.courses.map(\.optional)
        courseUnits = space.courses.map(\.units)
        // The root: nothing placed, every course open with every group.
        tables.fillAll(options)
        openCount[0] = courseCount
        for course in 0..<courseCount {
            openCourse[course] = course
            optionCount[course] = tables.groupCounts[course]
        }
    }

    deinit {
        for pointer in [openCourse, optionCount, openCount, dayFirst, dayLast, dayBusy, placed, earliest, latest, choice] {
            pointer.deallocate()
        }
        options.deallocate()
        units.deallocate()
        quality.deallocate()
        days.deallocate()
    }

    /// ``dayFirst`` of a free day: past every slot.
    static let noSlot = 1 << 20

    /// The course in slot `slot` of level `level`.
    @inline(__always)
    func course(_ slot: Int, at level: Int) -> Int { openCourse[level * courseCount + slot] }

    /// Calls `body` with each group (course-local index) the course still has at `level`, in
    /// group order: best first.
    @inline(__always)
    func forEachOption(of course: Int, at level: Int, _ body: (Int) throws -> Void) rethrows {
        let base = level * words + tables.wordStart[course]
        for word in 0..<tables.wordCounts[course] {
            var bits = options[base + word]
            while bits != 0 {
                try body(word * 64 + bits.trailingZeroBitCount)
                bits &= bits - 1
            }
        }
    }

    /// The first (best) group the course still has at `level`; nil when none.
    @inline(__always)
    func firstOption(of course: Int, at level: Int) -> Int? {
        let base = level * words + tables.wordStart[course]
        for word in 0..<tables.wordCounts[course] where options[base + word] != 0 {
            return word * 64 + options[base + word].trailingZeroBitCount
        }
        return nil
    }

    /// The first (best) group the course still has at `level` that is also in `set` (an
    /// option set, such as a compatibility row); nil when none.
    @inline(__always)
    func firstOption(of course: Int, at level: Int, within set: UnsafePointer<UInt64>) -> Int? {
        let start = tables.wordStart[course]
        let base = level * words + start
        for word in 0..<tables.wordCounts[course] {
            let bits = options[base + word] & set[start + word]
            if bits != 0 { return word * 64 + bits.trailingZeroBitCount }
        }
        return nil
    }

    /// Whether the branch can still reach `target` courses within the unit limits.
    func viable(_ level: Int) -> Bool {
        let target = space.target
        let placed = placed[level], open = openCount[level]
        if placed > target || placed + open < target { return false }
        var requiredLeft = 0
        for slot in 0..<open where !optional[course(slot, at: level)] { requiredLeft += 1 }
        if placed + requiredLeft > target { return false }
        if let maxUnits = space.maxUnits, units[level] > maxUnits + 1e-9 { return false }
        if let minUnits = space.minUnits {
            // The largest units of `target - placed` open courses, added largest first.
            var best = 0.0
            var wanted = target - placed
            for course in space.byUnits where wanted > 0 && isOpen(course, at: level) {
                best += courseUnits[course]
                wanted -= 1
            }
            if units[level] + best < minUnits - 1e-9 { return false }
        }
        return true
    }

    private func isOpen(_ course: Int, at level: Int) -> Bool {
        for slot in 0..<openCount[level] where openCourse[level * courseCount + slot] == course { return true }
        return false
    }

    /// The slot to branch on: required before optional, fewest options first, then the first
    /// course in request order.
    func pick(_ level: Int) -> Int {
        let row = level * courseCount
        var best = 0
        for slot in 1..<max(1, openCount[level]) {
            let a = openCourse[row + slot], b = openCourse[row + best]
            if optional[a] != optional[b] { if !optional[a] { best = slot }; continue }
            let countA = optionCount[row + slot], countB = optionCount[row + best]
            if countA < countB || (countA == countB && a < b) { best = slot }
        }
        return best
    }

    /// Places group `group` of the course in slot `slot` of `level`, writing `level + 1`; false
    /// when forward checking leaves a required course without a group (level `level + 1` is
    /// then not valid). Sets the course's ``choice``, which the caller resets.
    func place(_ group: Int, slot: Int, at level: Int) -> Bool {
        let course = course(slot, at: level)
        let global = tables.groupBase[course] + group
        let next = level + 1
        copyDays(from: level)
        for index in tables.daySpanStart[global]..<tables.daySpanStart[global + 1] {
            let span = tables.daySpans[index], day = next * 7 + span.day
            dayFirst[day] = min(dayFirst[day], span.first)
            dayLast[day] = max(dayLast[day], span.last)
            dayBusy[day] += span.busy
        }
        placed[next] = placed[level] + 1
        units[next] = units[level] + courseUnits[course]
        quality[next] = quality[level] + tables.quality[global]
        days[next] = days[level] | tables.days[global]
        earliest[next] = min(earliest[level], tables.earliestStart[global])
        latest[next] = max(latest[level], tables.latestEnd[global])
        choice[space.courses[course].position] = group
        // A group without timed meetings conflicts with nothing: the others keep every option.
        if tables.isUnscheduled(global) {
            removeSlot(slot, from: level)
            return true
        }
        let row = tables.compatibleRow(global)
        let from = level * courseCount, to = next * courseCount
        var kept = 0
        for index in 0..<openCount[level] where index != slot {
            let other = openCourse[from + index]
            let start = tables.wordStart[other], length = tables.wordCounts[other]
            let source = options + level * words + start, target = options + next * words + start
            var count = 0
            if tables.allUnscheduled[other] {
                for word in 0..<length { target[word] = source[word] }
                count = optionCount[from + index]
            } else {
                for word in 0..<length {
                    let bits = source[word] & row[start + word]
                    target[word] = bits
                    count += bits.nonzeroBitCount
                }
                if count == 0, !optional[other] { return false }
            }
            openCourse[to + kept] = other
            optionCount[to + kept] = count
            kept += 1
        }
        openCount[next] = kept
        return true
    }

    /// Leaves the optional course in slot `slot` of `level` out, writing `level + 1`.
    func skip(_ slot: Int, at level: Int) {
        let next = level + 1
        copyDays(from: level)
        placed[next] = placed[level]
        units[next] = units[level]
        quality[next] = quality[level]
        days[next] = days[level]
        earliest[next] = earliest[level]
        latest[next] = latest[level]
        removeSlot(slot, from: level)
    }

    @inline(__always)
    private func copyDays(from level: Int) {
        for day in 0..<7 {
            dayFirst[level * 7 + 7 + day] = dayFirst[level * 7 + day]
            dayLast[level * 7 + 7 + day] = dayLast[level * 7 + day]
            dayBusy[level * 7 + 7 + day] = dayBusy[level * 7 + day]
        }
    }

    /// Idle slots between the first and last class of each day at `level`, summed: the slot
    /// count of the placed mask's ``WeekMask/gaps``.
    func idleSlots(_ level: Int) -> Int {
        var idle = 0
        for day in level * 7..<level * 7 + 7 where dayLast[day] >= 0 {
            idle += dayLast[day] - dayFirst[day] + 1 - dayBusy[day]
        }
        return idle
    }

    /// How many of a group's slots fall in the idle time of `level`. The group must share no
    /// slot with what is placed (every option left after forward checking does not), so its
    /// slots within the days' spans are all idle ones: the overlap with ``WeekMask/gaps``.
    @inline(__always)
    func idleOverlap(_ global: Int, at level: Int) -> Int {
        tables.slotsWithin(global, first: dayFirst + level * 7, last: dayLast + level * 7)
    }

    /// The shape of the week placed at `level`: what ``WeekMask/shape`` gives for the union
    /// of the placed groups' masks.
    func shape(_ level: Int) -> WeekShape {
        var shape = WeekShape()
        for day in level * 7..<level * 7 + 7 where dayLast[day] >= 0 {
            shape.days += 1
            shape.earliestStart = min(shape.earliestStart ?? Int.max, dayFirst[day] * WeekMask.slotMinutes)
            shape.latestEnd = max(shape.latestEnd ?? Int.min, (dayLast[day] + 1) * WeekMask.slotMinutes)
            shape.gapMinutes += (dayLast[day] - dayFirst[day] + 1 - dayBusy[day]) * WeekMask.slotMinutes
        }
        return shape
    }

    /// Level `level + 1`'s open courses: those of `level` but the one in `slot`, options unchanged.
    private func removeSlot(_ slot: Int, from level: Int) {
        let from = level * courseCount, to = (level + 1) * courseCount
        var kept = 0
        for index in 0..<openCount[level] where index != slot {
            let other = openCourse[from + index]
            let start = tables.wordStart[other]
            for word in 0..<tables.wordCounts[other] { options[(level + 1) * words + start + word] = options[level * words + start + word] }
            openCourse[to + kept] = other
            optionCount[to + kept] = optionCount[from + index]
            kept += 1
        }
        openCount[level + 1] = kept
    }
}

public import Foundation

extension CronExpression {
    /// The first instant strictly after `date` at which the expression fires, reading the
    /// fields as wall-clock time in `timeZone`; nil when it never fires within eight years.
    ///
    /// Daylight saving: a wall-clock time skipped by a spring-forward gap fires once, shifted
    /// forward by the gap (02:30 becomes 03:30). A time repeated by a fall-back fires at its
    /// first occurrence only, unless the hour field is `*`-like (every hour), in which case it
    /// fires in both occurrences.
    public func nextFire(after date: Date, in timeZone: TimeZone) -> Date? {
        let after = date.timeIntervalSince1970
        let afterSeconds = Int64(after.rounded(.down))
        func offset(_ utc: Int64) -> Int64 {
            Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(utc))))
        }
        // Start three hours of wall-clock time early: a repeated hour's second occurrence has
        // an earlier wall-clock time than `date`.
        let localStart = afterSeconds + offset(afterSeconds) - 3 * 3600
        let firstDay = Self.floorDiv(localStart, 86_400)
        var best: Int64?
        for day in firstDay...(firstDay + 366 * 8) {
            let (_, month, dayOfMonth) = CivilDate.civil(fromDays: day)
            guard matchesDay(month: month, day: dayOfMonth, weekday: CivilDate.weekday(fromDays: day)) else { continue }
            for hour in hours {
                for minute in minutes {
                    let local = day * 86_400 + Int64(hour * 3600 + minute * 60)
                    if local < localStart { continue }
                    let before = offset(local - 86_400)
                    let later = offset(local + 86_400)
                    // Nothing at or after this wall-clock time can come before `best`.
                    if let found = best, local - max(before, later) > found { return Self.date(found) }
                    // Every instant of this wall-clock time is at or before `date`.
                    if local - min(before, later) <= afterSeconds { continue }
                    for instant in occurrences(local: local, before: before, later: later, offset: offset)
                    where Double(instant) > after && instant < (best ?? .max) {
                        best = instant
                    }
                }
            }
        }
        return best.map(Self.date)
    }

    /// The instants at which wall-clock time `local` happens.
    private func occurrences(
        local: Int64, before: Int64, later: Int64, offset: (Int64) -> Int64
    ) -> [Int64] {
        var valid: [Int64] = []
        for candidate in Set([before, later]) {
            let instant = local - candidate
            if offset(instant) == candidate { valid.append(instant) }
        }
        valid.sort()
        if valid.isEmpty { return [local - before] }  // in a gap: shifted forward
        if valid.count > 1, !everyHour { return [valid[0]] }  // repeated: once
        return valid
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    static func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }
}

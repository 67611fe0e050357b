public import Foundation

/// Recurring schedules, behind a protocol (``SQLiteScheduleStore`` on SQLite). Each method is
/// one transaction of its own, like ``JobQueueStoring``'s: the promises (one enqueue per tick
/// across processes, an operator's enable/disable kept) are the store's to keep.
public protocol ScheduleStoring: Sendable {
    /// Writes declarations: new schedules start enabled; existing ones take the declared kind,
    /// arguments and queue, and a new next run only when their rule changed.
    func sync(_ definitions: [ScheduleDefinition], now: Date, timeZone: TimeZone) async throws
    /// Enqueues the job of every due schedule once and moves its next run.
    func tick(now: Date, timeZone: TimeZone) async throws -> [ScheduleTick]
    /// Enqueues a schedule's job now, outside its rule; nil when no schedule has that name.
    func runNow(name: String, now: Date) async throws -> JobEnqueuer.Result?
    /// Enables or disables a schedule; false when no schedule has that name.
    func setEnabled(_ enabled: Bool, name: String, now: Date, timeZone: TimeZone) async throws -> Bool
}

extension ScheduleRule {
    /// The rule as the `cron` and `interval_seconds` columns keep it (exactly one is set).
    package var storedColumns: (cron: String?, interval: Int?) {
        switch self {
        case .cron(let expression): (expression.source, nil)
        case .every(let seconds): (nil, max(1, seconds))
        }
    }

    /// The next run in milliseconds; `Int64.max` when the rule never fires again.
    package static func nextRunMs(_ rule: ScheduleRule, after now: Date, timeZone: TimeZone) -> Int64 {
        rule.next(after: now, in: timeZone)?.millisecondsSince1970 ?? Int64.max
    }
}

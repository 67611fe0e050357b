public import Foundation

/// When a recurring job runs: a cron expression or a fixed interval.
public enum ScheduleRule: Sendable, Equatable, CustomStringConvertible {
    case cron(CronExpression)
    /// Every so many seconds (at least 1).
    case every(seconds: Int)

    /// Parses a cron expression. Throws ``CronExpression/ParseError``.
    public static func cron(_ text: String) throws -> ScheduleRule { .cron(try CronExpression(text)) }

    /// The first run strictly after `date`. Missed runs are not made up: after downtime the
    /// scheduler enqueues once and asks for the next run after *now*.
    public func next(after date: Date, in timeZone: TimeZone) -> Date? {
        switch self {
        case .cron(let expression): expression.nextFire(after: date, in: timeZone)
        case .every(let seconds): date.addingTimeInterval(TimeInterval(max(1, seconds)))
        }
    }

    public var description: String {
        switch self {
        case .cron(let expression): expression.source
        case .every(let seconds): "every \(seconds)s"
        }
    }
}

/// A recurring job declared by a module: the scheduler enqueues `kind` with `args` on `queue`
/// at each tick of `rule`.
public struct ScheduleDefinition: Sendable {
    /// Stable and unique; the schedule's identity across restarts.
    public var name: String
    public var kind: String
    public var args: Data
    public var queue: String
    public var rule: ScheduleRule
    public var priority: Int
    /// Attempts for each tick's job; keep it small for frequent schedules.
    public var maxAttempts: Int

    public init<Args: Encodable>(
        name: String, kind: String, args: Args, queue: String = "default", rule: ScheduleRule,
        priority: Int = 0, maxAttempts: Int = 3
    ) throws {
        let job = try NewJob(kind: kind, args: args)
        self.init(name: name, kind: kind, rawArgs: job.args, queue: queue, rule: rule, priority: priority, maxAttempts: maxAttempts)
    }

    public init(
        name: String, kind: String, rawArgs: Data = Data("{}".utf8), queue: String = "default", rule: ScheduleRule,
        priority: Int = 0, maxAttempts: Int = 3
    ) {
        self.name = name
        self.kind = kind
        self.args = rawArgs
        self.queue = queue
        self.rule = rule
        self.priority = priority
        self.maxAttempts = max(1, maxAttempts)
    }
}

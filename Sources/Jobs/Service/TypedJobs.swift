public import Contracts
public import Foundation

extension NewJob {
    /// A job of a typed kind: its name, its queue (unless `queue` says otherwise) and its
    /// payload as the arguments.
    public init<Payload>(
        _ kind: JobKind<Payload>, _ payload: Payload, queue: String? = nil, priority: Int = 0, runAt: Date? = nil,
        maxAttempts: Int = 20, uniqueKey: String? = nil
    ) throws {
        try self.init(
            kind: kind.name, args: payload, queue: queue ?? kind.queue, priority: priority, runAt: runAt,
            maxAttempts: maxAttempts, uniqueKey: uniqueKey
        )
    }
}

extension JobRegistry {
    /// Registers the handler of a typed kind: jobs arrive with their payload decoded.
    public func register<Payload>(
        _ kind: JobKind<Payload>, adminEnqueueable: Bool = false,
        handler: @escaping @Sendable (Payload, JobContext) async throws -> JobOutcome
    ) {
        register(kind: kind.name, args: Payload.self, adminEnqueueable: adminEnqueueable, handler: handler)
    }
}

extension ScheduleDefinition {
    /// A schedule that enqueues a typed kind with `payload` on its kind's queue.
    public init<Payload>(
        name: String, kind: JobKind<Payload>, payload: Payload, rule: ScheduleRule, priority: Int = 0, maxAttempts: Int = 3
    ) throws {
        try self.init(name: name, kind: kind.name, args: payload, queue: kind.queue, rule: rule, priority: priority, maxAttempts: maxAttempts)
    }
}

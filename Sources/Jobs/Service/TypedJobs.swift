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
        register(kind: kind.name, args: Payload.self, queue: kind.queue, adminEnqueueable: adminEnqueueable, handler: handler)
    }

    /// Registers a module's housekeeping: `chore` runs as `kind` every `seconds` (and once
    /// when the pool starts), under a schedule named after the kind.
    public func registerHousekeeping(
        _ kind: JobKind<NoPayload>, every seconds: Int = 3600, chore: @escaping @Sendable () async throws -> Void
    ) throws {
        register(kind) { _, _ in
            try await chore()
            return .complete
        }
        schedule(try ScheduleDefinition(name: kind.name, kind: kind, payload: NoPayload(), rule: .every(seconds: seconds)))
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

public import Foundation
import Telemetry

/// A job to enqueue: what to run (`kind` and its arguments), where (`queue`), when (`runAt`)
/// and how persistently (`maxAttempts`). A `uniqueKey` makes the enqueue idempotent: while a
/// live job (available, scheduled, running or retryable) holds the key, enqueueing again
/// returns that job instead of a new one.
public struct NewJob: Sendable {
    public var kind: String
    /// The handler's arguments, as a JSON object.
    public var args: Data
    public var queue: String
    /// Lower runs first; within ``NewJob/priorities`` (both stores keep it in 32 bits).
    public var priority: Int
    /// nil runs as soon as a worker is free.
    public var runAt: Date?
    public var maxAttempts: Int
    public var uniqueKey: String?
    /// The trace context of what queued it (the current span's W3C traceparent when tracing
    /// is on), so the run joins that trace.
    public var traceparent: String? = GatewayTracing.traceparent()

    /// The priorities a job may have: far more levels than any queue needs, and well inside the
    /// 32-bit column both stores keep it in.
    public static let priorities = -1_000_000...1_000_000

    public init<Args: Encodable>(
        kind: String, args: Args, queue: String = "default", priority: Int = 0, runAt: Date? = nil,
        maxAttempts: Int = 20, uniqueKey: String? = nil
    ) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        self.init(
            kind: kind, rawArgs: try encoder.encode(args), queue: queue, priority: priority, runAt: runAt,
            maxAttempts: maxAttempts, uniqueKey: uniqueKey
        )
    }

    public init(
        kind: String, rawArgs: Data, queue: String = "default", priority: Int = 0, runAt: Date? = nil,
        maxAttempts: Int = 20, uniqueKey: String? = nil
    ) {
        self.kind = kind
        self.args = rawArgs
        self.queue = queue
        self.priority = priority
        self.runAt = runAt
        self.maxAttempts = max(1, maxAttempts)
        self.uniqueKey = uniqueKey
    }
}

/// The states of a job, named as River and Oban name them.
public enum JobState: String, Sendable, Codable, CaseIterable {
    case available, scheduled, running, retryable, completed, discarded, cancelled

    /// States in which a job still holds its unique key.
    public static let live: [JobState] = [.available, .scheduled, .running, .retryable]
    public var isFinal: Bool { self == .completed || self == .discarded || self == .cancelled }
}

extension Date {
    /// Milliseconds since the Unix epoch: how the jobs tables store time.
    public var millisecondsSince1970: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }
    public init(millisecondsSince1970 ms: Int64) { self.init(timeIntervalSince1970: Double(ms) / 1000) }
}

public import Foundation
public import GatewayCore

/// A job as operators see it: the field names River and Oban use.
public struct JobRecord: Sendable, Equatable, Encodable {
    public let id: Int64
    public let kind: String
    public let queue: String
    public let state: JobState
    /// Attempts started so far (the running one included).
    public let attempt: Int
    public let maxAttempts: Int
    public let priority: Int
    public let args: JSONValue
    public let errors: [JobAttemptError]
    public let uniqueKey: String?
    /// When the job is (or was) due to run.
    public let scheduledAt: Date
    /// When the latest attempt started.
    public let attemptedAt: Date?
    /// The worker that ran the latest attempt (`host:pid:random`).
    public let attemptedBy: String?
    /// Until when the running attempt's lease holds; nil when not running.
    public let leaseUntil: Date?
    /// When the job reached a final state (completed, discarded, cancelled).
    public let finalizedAt: Date?
    public let createdAt: Date

    public init(
        id: Int64, kind: String, queue: String, state: JobState, attempt: Int, maxAttempts: Int, priority: Int,
        args: JSONValue, errors: [JobAttemptError], uniqueKey: String?, scheduledAt: Date, attemptedAt: Date?,
        attemptedBy: String?, leaseUntil: Date?, finalizedAt: Date?, createdAt: Date
    ) {
        self.id = id
        self.kind = kind
        self.queue = queue
        self.state = state
        self.attempt = attempt
        self.maxAttempts = maxAttempts
        self.priority = priority
        self.args = args
        self.errors = errors
        self.uniqueKey = uniqueKey
        self.scheduledAt = scheduledAt
        self.attemptedAt = attemptedAt
        self.attemptedBy = attemptedBy
        self.leaseUntil = leaseUntil
        self.finalizedAt = finalizedAt
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, kind, queue, state, attempt, maxAttempts, priority, args, errors, uniqueKey, scheduledAt
        case attemptedAt, attemptedBy, leaseUntil, finalizedAt, createdAt
    }

    /// Absent values are written as `null`, so every job has the same keys.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(kind, forKey: .kind)
        try c.encode(queue, forKey: .queue)
        try c.encode(state, forKey: .state)
        try c.encode(attempt, forKey: .attempt)
        try c.encode(maxAttempts, forKey: .maxAttempts)
        try c.encode(priority, forKey: .priority)
        // Shown with the audit log's redaction: a secret never belongs in a job's arguments,
        // and one that got there is not shown.
        try c.encode(SecretRedaction.redacted(args), forKey: .args)
        try c.encode(errors, forKey: .errors)
        try c.encode(uniqueKey, forKey: .uniqueKey)
        try c.encode(scheduledAt, forKey: .scheduledAt)
        try c.encode(attemptedAt, forKey: .attemptedAt)
        try c.encode(attemptedBy, forKey: .attemptedBy)
        try c.encode(leaseUntil, forKey: .leaseUntil)
        try c.encode(finalizedAt, forKey: .finalizedAt)
        try c.encode(createdAt, forKey: .createdAt)
    }

    /// Decodes the `errors` column (a JSON array of `{at, attempt, error}`).
    package static func decodeErrors(_ text: String) -> [JobAttemptError] {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return (try? decoder.decode([JobAttemptError].self, from: Data(text.utf8))) ?? []
    }
}

/// A job a worker has claimed: everything needed to run it and to record its outcome.
public struct ClaimedJob: Sendable {
    public let id: Int64
    public let queue: String
    public let kind: String
    public let args: Data
    public let attempt: Int
    public let maxAttempts: Int
    public let priority: Int
    public let uniqueKey: String?
    /// Milliseconds: when it was due, when this attempt started, until when the lease holds.
    public let scheduledAtMs: Int64
    public let attemptedAtMs: Int64
    public let leaseUntilMs: Int64
    /// The W3C traceparent of what queued the job, when tracing was on.
    public let traceparent: String?

    package init(
        id: Int64, queue: String, kind: String, args: Data, attempt: Int, maxAttempts: Int, priority: Int, uniqueKey: String?,
        scheduledAtMs: Int64, attemptedAtMs: Int64, leaseUntilMs: Int64, traceparent: String? = nil
    ) {
        self.traceparent = traceparent
        self.id = id
        self.queue = queue
        self.kind = kind
        self.args = args
        self.attempt = attempt
        self.maxAttempts = maxAttempts
        self.priority = priority
        self.uniqueKey = uniqueKey
        self.scheduledAtMs = scheduledAtMs
        self.attemptedAtMs = attemptedAtMs
        self.leaseUntilMs = leaseUntilMs
    }
}

/// The outcome of one attempt as the store records it. Every write is conditional on the
/// worker still holding the lease (`locked_by`, `attempt`, state `running`).
public struct JobResolution: Sendable {
    public enum Action: Sendable, Equatable {
        case complete
        /// Retryable at `retryAtMs`, or discarded when the attempts are used up.
        case fail(message: String, retryAtMs: Int64)
        case cancel(reason: String)
        case snooze(untilMs: Int64)
        /// Back to available without using up the attempt (graceful shutdown).
        case release
    }

    public let id: Int64
    public let attempt: Int
    public let queue: String
    public let kind: String
    public let action: Action
    /// How long the handler ran, in milliseconds (nil when it did not run: a release), for the
    /// run-time histogram of `job_stats`.
    public let runMs: Int64?

    public init(id: Int64, attempt: Int, queue: String, kind: String, action: Action, runMs: Int64? = nil) {
        self.id = id
        self.attempt = attempt
        self.queue = queue
        self.kind = kind
        self.action = action
        self.runMs = runMs
    }
}

public import Foundation

/// Identifies one claim of a job: the id and the attempt number the claim gave it.
public struct LeaseKey: Sendable, Hashable {
    public let id: Int64
    public let attempt: Int
    public init(id: Int64, attempt: Int) {
        self.id = id
        self.attempt = attempt
    }
}

/// The recorded result of a resolution; `state` is nil when the worker no longer held the
/// lease (the job was reaped, cancelled or deleted meanwhile) and nothing was written.
public struct FinishedJob: Sendable {
    public let resolution: JobResolution
    public let state: JobState?

    package init(resolution: JobResolution, state: JobState?) {
        self.resolution = resolution
        self.state = state
    }
}

/// A job whose lease expired, with the state it was put in.
public struct ReapedJob: Sendable, Equatable {
    public let id: Int64
    public let queue: String
    public let kind: String
    public let state: JobState

    public init(id: Int64, queue: String, kind: String, state: JobState) {
        self.id = id
        self.queue = queue
        self.kind = kind
        self.state = state
    }
}

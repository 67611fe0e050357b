import Foundation

/// Filters for the operators' job list; nil matches everything.
public struct JobFilter: Sendable {
    public var states: [JobState]?
    public var queue: String?
    public var kind: String?

    public init(states: [JobState]? = nil, queue: String? = nil, kind: String? = nil) {
        self.states = states
        self.queue = queue
        self.kind = kind
    }
}

/// Per-queue numbers for the operators' queue view.
public struct QueueNumbers: Sendable {
    public var counts: [JobState: Int] = [:]
    public var oldestReadyMs: Int64?
    public var completedLastHour = 0
    public var failedLastHour = 0
    public var completedLastDay = 0
    public var failedLastDay = 0
    public var paused = false

    public init() {}
}

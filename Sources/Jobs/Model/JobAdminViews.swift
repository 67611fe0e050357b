import Foundation

/// Per-queue numbers for the operators' queue view.
public struct QueueNumbers: Sendable {
    public var counts: [JobState: Int] = [:]
    public var oldestReadyMs: Int64?
    public var completedLastHour = 0
    public var failedLastHour = 0
    public var completedLastDay = 0
    public var failedLastDay = 0
    public var paused = false
    /// The concurrency an operator set (nil: each instance's configured number).
    public var concurrency: Int?

    public init() {}
}

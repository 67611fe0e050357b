public import Foundation

/// A job enqueued by a tick.
public struct ScheduleTick: Sendable, Equatable {
    public let schedule: String
    public let tickMs: Int64
    public let jobID: Int64

    public init(schedule: String, tickMs: Int64, jobID: Int64) {
        self.schedule = schedule
        self.tickMs = tickMs
        self.jobID = jobID
    }
}

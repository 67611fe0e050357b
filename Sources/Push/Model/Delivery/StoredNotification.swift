public import Contracts
public import Foundation

/// A notification in the outbox: what to tell one device, and how delivery went.
public struct StoredNotification: Sendable, Equatable {
    public enum State: String, Sendable, Codable, CaseIterable {
        /// Waiting for (another) delivery attempt.
        case pending
        case delivered
        /// Never deliverable as it was (the reason is kept).
        case discarded
        /// Retries exhausted, or the device died.
        case failed
    }

    public var id: Int64
    public var deviceID: Int64
    public var uniqueKey: String
    public var notification: OutgoingNotification
    public var state: State
    public var attempts: Int
    public var lastError: String?
    public var createdAt: Date
    /// When it may go (later than `createdAt` when quiet hours or the hourly budget held it).
    public var deliverAt: Date
    public var deliveredAt: Date?

    package init(id: Int64, deviceID: Int64, uniqueKey: String, notification: OutgoingNotification, state: State, attempts: Int, lastError: String?, createdAt: Date, deliverAt: Date, deliveredAt: Date?) {
        self.id = id
        self.deviceID = deviceID
        self.uniqueKey = uniqueKey
        self.notification = notification
        self.state = state
        self.attempts = attempts
        self.lastError = lastError
        self.createdAt = createdAt
        self.deliverAt = deliverAt
        self.deliveredAt = deliveredAt
    }
}

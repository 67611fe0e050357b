public import Contracts
public import Foundation

/// A pending confirmation of an email device, as stored: hashes only.
public struct PendingEmailConfirmation: Sendable, Equatable {
    public var deviceID: Int64
    public var codeHash: Data
    public var tokenHash: Data
    public var expiresAt: Date
    public var failedAttempts: Int

    package init(deviceID: Int64, codeHash: Data, tokenHash: Data, expiresAt: Date, failedAttempts: Int) {
        self.deviceID = deviceID
        self.codeHash = codeHash
        self.tokenHash = tokenHash
        self.expiresAt = expiresAt
        self.failedAttempts = failedAttempts
    }
}

/// A one-click unsubscribe link, as stored (its token's hash is the key).
public struct StoredUnsubscribe: Sendable, Equatable {
    public var target: UnsubscribeTarget
    public var createdAt: Date
    public var usedAt: Date?

    package init(target: UnsubscribeTarget, createdAt: Date, usedAt: Date?) {
        self.target = target
        self.createdAt = createdAt
        self.usedAt = usedAt
    }
}

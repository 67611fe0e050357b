public import Foundation

/// A link that shows one saved schedule to anyone who holds it, until its owner revokes it or
/// it expires. Only the SHA-256 of its token is kept; the token is shown once, when made.
public struct ShareLink: Sendable, Equatable {
    public var id: Int64
    public var scheduleID: Int64
    public var createdAt: Date
    /// Nil: the link lasts until it is revoked (or its schedule deleted).
    public var expiresAt: Date?

    public init(id: Int64, scheduleID: Int64, createdAt: Date, expiresAt: Date?) {
        self.id = id
        self.scheduleID = scheduleID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    /// Whether the link still shows its schedule at `now`.
    public func isLive(at now: Date) -> Bool { expiresAt.map { now < $0 } ?? true }

    /// Most live links one schedule may have.
    public static let limitPerSchedule = 20
}

/// How long a share link lasts, as a student picks it: an hour, a day, a week, or until revoked.
public enum ShareLinkExpiry: String, Sendable, CaseIterable {
    case hour = "1h"
    case day = "1d"
    case week = "1w"
    case never

    /// When a link made at `now` expires; nil for `never`.
    public func expiresAt(from now: Date) -> Date? {
        switch self {
        case .hour: now.addingTimeInterval(3600)
        case .day: now.addingTimeInterval(86_400)
        case .week: now.addingTimeInterval(7 * 86_400)
        case .never: nil
        }
    }
}

public import Foundation

/// When a student may add classes in a term (Banner's time ticket, PeopleSoft's enrollment
/// appointment): for some accounts, for a standing, or for everyone (neither), from `opensAt`
/// until `closesAt` (nil: to the end of registration).
public struct RegistrationWindow: Sendable, Codable, Equatable {
    public var accountIds: [Int64]?
    public var standing: ClassStanding?
    public var opensAt: Date
    public var closesAt: Date?

    public init(accountIds: [Int64]? = nil, standing: ClassStanding? = nil, opensAt: Date, closesAt: Date? = nil) {
        self.accountIds = accountIds
        self.standing = standing
        self.opensAt = opensAt
        self.closesAt = closesAt
    }

    /// Whether `now` is inside the window.
    public func isOpen(at now: Date) -> Bool { opensAt <= now && closesAt.map { now < $0 } ?? true }

    /// The window that applies to a student among a term's: the most specific that matches,
    /// by account first, then by standing, then the one for everyone. Nil when none matches
    /// (with windows defined, such a student has no window and may not add); a term with no
    /// windows at all is open to everyone, which the caller decides before asking.
    public static func applying(to accountID: Int64, standing: ClassStanding?, among windows: [RegistrationWindow]) -> RegistrationWindow? {
        if let byAccount = windows.first(where: { $0.accountIds?.contains(accountID) == true }) { return byAccount }
        if let standing, let byStanding = windows.first(where: { $0.accountIds == nil && $0.standing == standing }) { return byStanding }
        return windows.first { $0.accountIds == nil && $0.standing == nil }
    }
}

public import Foundation

/// What a hold stops: adding classes (register, waitlist, claim, swap in) or dropping them.
public enum HoldAction: String, Sendable, Codable, CaseIterable {
    case add, drop
}

/// A hold on a student's registration (Banner's holds, PeopleSoft's service indicators): a
/// code, the reason the student is shown, what it blocks, and until when (nil: until lifted).
/// No override lifts a hold's effect: an admin lifts the hold.
public struct RegistrationHold: Sendable, Codable, Equatable {
    public var id: Int64
    public var code: String
    public var reason: String
    public var blocks: [HoldAction]
    public var until: Date?
    /// Who placed it and when (nil on a hold not yet stored).
    public var createdBy: Int64?
    public var createdAt: Date?

    public init(id: Int64, code: String, reason: String, blocks: [HoldAction], until: Date? = nil, createdBy: Int64? = nil, createdAt: Date? = nil) {
        self.id = id
        self.code = code
        self.reason = reason
        self.blocks = blocks
        self.until = until
        self.createdBy = createdBy
        self.createdAt = createdAt
    }

    /// Whether it stops `action` at `now` (a hold past its `until` stops nothing).
    public func blocks(_ action: HoldAction, at now: Date) -> Bool {
        guard blocks.contains(action) else { return false }
        return until.map { now < $0 } ?? true
    }
}

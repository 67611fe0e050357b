/// A role an account holds. Roles are ordered: an admin can do what an instructor can.
///
/// `operator` runs the operator console and sees no student data: it ranks just above a
/// student (its own account's routes), below an instructor, so no `role>=instructor` or
/// `role>=admin` route admits it. The console's routes admit it by name instead
/// (`RouteAccess.console`): reads always, actions where the gateway allows operators to act.
public enum Role: String, Sendable, Codable, CaseIterable, Comparable {
    case student
    case `operator`
    case instructor
    case admin

    private var rank: Int {
        switch self {
        case .student: 0
        case .operator: 1
        case .instructor: 2
        case .admin: 3
        }
    }

    public static func < (lhs: Role, rhs: Role) -> Bool { lhs.rank < rhs.rank }
}

/// Who is making a request, once authenticated.
public struct Identity: Sendable, Equatable {
    public let accountID: Int64
    public let username: String
    public let role: Role
    /// The token's id when authenticated by bearer token (used to revoke it).
    public let tokenID: Int64?

    public init(accountID: Int64, username: String, role: Role, tokenID: Int64? = nil) {
        self.accountID = accountID
        self.username = username
        self.role = role
        self.tokenID = tokenID
    }
}

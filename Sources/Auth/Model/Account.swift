public import Foundation
public import GatewayCore

/// An account as stored. The password hash never leaves the Auth module's store.
public struct Account: Sendable, Equatable, Codable {

    public var id: Int64?
    public var username: String
    public var email: String?
    public var passwordHash: String
    public var role: Role
    public var createdAt: Date
    public var disabled: Bool

    enum CodingKeys: String, CodingKey {
        case id, username, email, role, disabled
        case passwordHash = "password_hash"
        case createdAt = "created_at"
    }

    public init(username: String, email: String?, passwordHash: String, role: Role, createdAt: Date) {
        self.username = username
        self.email = email
        self.passwordHash = passwordHash
        self.role = role
        self.createdAt = createdAt
        self.disabled = false
    }

    public var identity: Identity { Identity(accountID: id ?? 0, username: username, role: role) }

    /// Whether the account has a password. A campus account (made by campus sign-in) has none:
    /// its hash is empty, and no password check can pass.
    public var hasPassword: Bool { !passwordHash.isEmpty }

    /// What the API shows of an account: never the hash.
    public var view: AccountView { view(displayName: nil) }

    /// The account as its owner sees it, with the name other students see it by.
    public func view(displayName: String?, consoleCanAct: Bool? = nil) -> AccountView {
        AccountView(
            id: id ?? 0, username: username, email: email, role: role, createdAt: createdAt, disabled: disabled, displayName: displayName,
            consoleCanAct: consoleCanAct
        )
    }
}

/// The public JSON shape of an account.
public struct AccountView: Codable, Sendable, Equatable {
    public let id: Int64
    public let username: String
    public let email: String?
    public let role: Role
    public let createdAt: Date
    public let disabled: Bool
    /// The name other students see (chosen on `PATCH /v1/me`, else the registration profile's
    /// first name); only on the owner's own view.
    public let displayName: String?
    /// Whether this account may act in the operator console (retry, cancel, pause, change a
    /// queue): admins always, operators where `GATEWAY_OPERATOR_CAN_ACT=true`; only on the
    /// owner's own view (`GET /v1/me`), so the console needn't try an action to find out.
    public var consoleCanAct: Bool? = nil
}

/// A stored bearer token: only its SHA-256 is kept.
public struct AccessToken: Sendable, Codable {
    public var id: Int64?
    public var accountID: Int64
    public var tokenHash: Data
    public var createdAt: Date
    public var expiresAt: Date
    public var revokedAt: Date?

    enum CodingKeys: String, CodingKey {
        case id
        case accountID = "account_id"
        case tokenHash = "token_hash"
        case createdAt = "created_at"
        case expiresAt = "expires_at"
        case revokedAt = "revoked_at"
    }

    public init(id: Int64?, accountID: Int64, tokenHash: Data, createdAt: Date, expiresAt: Date, revokedAt: Date?) {
        self.id = id
        self.accountID = accountID
        self.tokenHash = tokenHash
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
    }
}

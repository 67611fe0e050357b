public import Foundation
public import GRDB
public import GatewayCore

/// An account as stored. The password hash never leaves the Auth module's store.
public struct Account: Sendable, Equatable, Codable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "accounts"

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

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    public var identity: Identity { Identity(accountID: id ?? 0, username: username, role: role) }

    /// What the API shows of an account: never the hash.
    public var view: AccountView {
        AccountView(id: id ?? 0, username: username, email: email, role: role, createdAt: createdAt, disabled: disabled)
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
}

/// A stored bearer token: only its SHA-256 is kept.
struct AccessToken: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "access_tokens"
    var id: Int64?
    var accountID: Int64
    var tokenHash: Data
    var createdAt: Date
    var expiresAt: Date
    var revokedAt: Date?

    enum CodingKeys: String, CodingKey {
        case id
        case accountID = "account_id"
        case tokenHash = "token_hash"
        case createdAt = "created_at"
        case expiresAt = "expires_at"
        case revokedAt = "revoked_at"
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

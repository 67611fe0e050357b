public import Contracts
public import Foundation

/// A student's stored gradebook account, its password still sealed.
public struct StoredGradebookAccount: Sendable, Equatable {
    /// What the sealed secret is.
    public enum CredentialKind: String, Sendable, Codable, CaseIterable {
        /// A gradebook password (Basic sources).
        case password
        /// An access token the student pasted (a Canvas personal access token).
        case accessToken = "access-token"
        /// A Canvas OAuth2 grant (access token, refresh token, expiry), as JSON.
        case oauth
    }

    /// Whether the account still works without the student.
    public enum Status: String, Sendable, Codable, CaseIterable {
        case ok
        /// The source refused the refresh token: the student must connect the account again.
        case needsStudent = "needs-student"
    }

    public var id: Int64
    public var accountID: Int64
    public var sourceID: Int64
    public var username: String
    /// The vault's sealed text; opened only to call the upstream.
    public var sealedPassword: String
    public var createdAt: Date
    public var updatedAt: Date
    public var credentialKind: CredentialKind
    public var status: Status

    package init(
        id: Int64, accountID: Int64, sourceID: Int64, username: String, sealedPassword: String, createdAt: Date, updatedAt: Date,
        credentialKind: CredentialKind = .password, status: Status = .ok
    ) {
        self.credentialKind = credentialKind
        self.status = status
        self.id = id
        self.accountID = accountID
        self.sourceID = sourceID
        self.username = username
        self.sealedPassword = sealedPassword
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

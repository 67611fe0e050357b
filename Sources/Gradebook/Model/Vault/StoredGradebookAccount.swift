public import Contracts
public import Foundation

/// A student's stored gradebook account, its password still sealed.
public struct StoredGradebookAccount: Sendable, Equatable {
    public var id: Int64
    public var accountID: Int64
    public var sourceID: Int64
    public var username: String
    /// The vault's sealed text; opened only to call the upstream.
    public var sealedPassword: String
    public var createdAt: Date
    public var updatedAt: Date

    package init(id: Int64, accountID: Int64, sourceID: Int64, username: String, sealedPassword: String, createdAt: Date, updatedAt: Date) {
        self.id = id
        self.accountID = accountID
        self.sourceID = sourceID
        self.username = username
        self.sealedPassword = sealedPassword
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

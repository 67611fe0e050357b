/// Students' own stored gradebook accounts (`/v1/me/gradebook-accounts`), answered by the
/// Gradebook module, which keeps them sealed. Push asks which to poll for grade alerts and
/// whether an account a student names for its preferences is theirs.
public protocol OwnedGradebookAccounts: Sendable {
    /// The stored accounts of these owners (gateway account ids), in id order.
    func ownedAccounts(of owners: [Int64]) async throws -> [OwnedGradebookAccount]
    /// One stored account, when it belongs to `owner`.
    func ownedAccount(id: Int64, owner: Int64) async throws -> OwnedGradebookAccount?
}

/// A stored gradebook account as other modules may see it: never the password.
public struct OwnedGradebookAccount: Sendable, Equatable {
    public var id: Int64
    /// The gateway account that stored it: the student told of its grades.
    public var ownerAccountId: Int64
    public var sourceId: Int64
    /// The source's name, for notifications (`Cal Poly CSC`).
    public var sourceName: String
    public var username: String
    /// How often its source wants it polled, in seconds.
    public var pollIntervalSeconds: Int

    public init(id: Int64, ownerAccountId: Int64, sourceId: Int64, sourceName: String, username: String, pollIntervalSeconds: Int) {
        self.id = id
        self.ownerAccountId = ownerAccountId
        self.sourceId = sourceId
        self.sourceName = sourceName
        self.username = username
        self.pollIntervalSeconds = pollIntervalSeconds
    }
}

public import Contracts
import Storage

/// Gradebook's answer to ``OwnedGradebookAccounts``: which stored accounts Push may poll for
/// their owners, never with their passwords.
extension GradebookAccountService: OwnedGradebookAccounts {
    public func ownedAccounts(of owners: [Int64]) async throws -> [OwnedGradebookAccount] {
        guard !owners.isEmpty else { return [] }
        let stored = try await transactions.read { [store] db in try store.accounts(ofOwners: owners, in: db) }
        return try await described(stored)
    }

    public func ownedAccount(id: Int64, owner: Int64) async throws -> OwnedGradebookAccount? {
        let stored = try await transactions.read { [store] db in try store.account(id: id, of: owner, in: db) }
        return try await described(stored.map { [$0] } ?? []).first
    }

    /// The accounts as Push may see them, with their sources' names and poll intervals (an
    /// account whose source is gone is left out).
    private func described(_ stored: [StoredGradebookAccount]) async throws -> [OwnedGradebookAccount] {
        guard !stored.isEmpty else { return [] }
        let sources = Dictionary(uniqueKeysWithValues: try await self.sources.sources().map { ($0.id, $0) })
        return stored.compactMap { account in
            guard let source = sources[account.sourceID] else { return nil }
            return OwnedGradebookAccount(
                id: account.id, ownerAccountId: account.accountID, sourceId: source.id, sourceName: source.name, username: account.username,
                pollIntervalSeconds: source.pollIntervalSeconds
            )
        }
    }
}

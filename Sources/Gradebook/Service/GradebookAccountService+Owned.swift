public import Contracts
import Storage

/// Gradebook's answer to ``OwnedGradebookAccounts``: which stored accounts Push may poll for
/// their owners, never with their passwords.
extension GradebookAccountService: OwnedGradebookAccounts {
    public func ownedAccounts(of owners: [Int64]) async throws -> [OwnedGradebookAccount] {
        guard !owners.isEmpty else { return [] }
        let sources = Dictionary(uniqueKeysWithValues: try await self.sources.sources().map { ($0.id, $0) })
        let stored = try await transactions.read { [store] db in
            try owners.flatMap { try store.accounts(of: $0, in: db) }
        }
        return stored.compactMap { account in
            guard let source = sources[account.sourceID] else { return nil }
            return OwnedGradebookAccount(
                id: account.id, ownerAccountId: account.accountID, sourceId: source.id, sourceName: source.name, username: account.username,
                pollIntervalSeconds: source.pollIntervalSeconds
            )
        }
        .sorted { $0.id < $1.id }
    }

    public func ownedAccount(id: Int64, owner: Int64) async throws -> OwnedGradebookAccount? {
        try await ownedAccounts(of: [owner]).first { $0.id == id }
    }
}

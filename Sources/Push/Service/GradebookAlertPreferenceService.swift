public import Contracts
public import Foundation
public import GatewayCore
public import Storage

/// `/v1/me/push-preferences/gradebook-accounts`: grade alerts per stored gradebook account,
/// which categories, and off for one account while on for another.
public final class GradebookAlertPreferenceService: Sendable {
    let transactions: any TransactionRunner
    let store: any GradeAlertStoring
    let accounts: any OwnedGradebookAccounts
    let clock: any GatewayClock

    public init(transactions: any TransactionRunner, store: any GradeAlertStoring, accounts: any OwnedGradebookAccounts, clock: any GatewayClock) {
        self.transactions = transactions
        self.store = store
        self.accounts = accounts
        self.clock = clock
    }

    /// Each of the student's stored accounts with its preference (all on when none is stored).
    public func preferences(accountID: Int64) async throws -> [(OwnedGradebookAccount, GradebookAlertPreference)] {
        let owned = try await accounts.ownedAccounts(of: [accountID])
        let stored = try await transactions.read { [store] db in try store.preferences(of: owned.map(\.id), in: db) }
        return owned.map { ($0, stored[$0.id] ?? GradebookAlertPreference(gradebookAccountID: $0.id)) }
    }

    /// Replaces one account's preference; another student's account (or none) is
    /// ``PushError/gradebookAccountNotFound``. Unknown categories are a 422.
    public func replace(accountID: Int64, gradebookAccountID: Int64, enabled: Bool, categories: [String: Bool]) async throws
        -> (OwnedGradebookAccount, GradebookAlertPreference)
    {
        if let unknown = categories.keys.sorted().first(where: { !GradebookAlertPreference.categories.contains($0) }) {
            throw PushError.invalid(field: "categories", message: "'\(unknown)' is not a grade category (grade.new, grade.changed).")
        }
        guard let account = try await accounts.ownedAccount(id: gradebookAccountID, owner: accountID) else {
            throw PushError.gradebookAccountNotFound
        }
        let preference = GradebookAlertPreference(
            gradebookAccountID: gradebookAccountID, enabled: enabled, muted: Set(categories.filter { !$0.value }.keys)
        )
        let now = clock.now()
        try await transactions.write { [store] db in try store.save(preference, ownerAccountID: accountID, at: now, in: db) }
        return (account, preference)
    }
}

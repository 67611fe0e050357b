public import Contracts
public import Foundation
public import GatewayCore
public import Storage

/// Gradebook's answer to ``DeviceGradebookAccounts``: QuickHAC devices' accounts, checked
/// against the upstream and sealed in the vault with the row as associated data.
public final class DeviceAccountService: DeviceGradebookAccounts {
    let transactions: any TransactionRunner
    let store: any DeviceAccountStoring
    let sources: GradebookSourceService
    let vault: any SecretSealer
    let clock: any GatewayClock
    let adapter: any GradebookAdapter

    static let table = "gradebook_device_accounts"

    /// `adapter` checks credentials and rosters upstream.
    public init(
        transactions: any TransactionRunner, store: any DeviceAccountStoring, sources: GradebookSourceService, vault: any SecretSealer,
        clock: any GatewayClock, adapter: any GradebookAdapter
    ) {
        self.transactions = transactions
        self.store = store
        self.sources = sources
        self.vault = vault
        self.clock = clock
        self.adapter = adapter
    }

    public static func context(rowID: Int64) -> VaultContext { VaultContext(table: table, rowID: rowID, owner: 0) }

    public func store(
        deviceKey: String, sourceID: Int64, username: String, password: String, clientAddress: String?
    ) async throws(DeviceGradebookError) -> (id: Int64, created: Bool) {
        let source: GradebookSource
        do { source = try await sources.source(id: sourceID) } catch { throw .unknownSource }
        // QuickHAC devices speak the Cal Poly protocol; another kind's source is no district of theirs.
        guard source.kind == .calpoly else { throw .unknownSource }
        let credentials = GradebookCredentials(username: username, password: password, caller: .anonymous(clientAddress: clientAddress))
        do {
            _ = try await adapter.verify(credentials, source: source)
        } catch {
            throw Self.deviceError(error)
        }
        let now = clock.now()
        let vault = self.vault, store = self.store
        do {
            return try await transactions.write { db in
                let (id, created) = try store.upsert(deviceKey: deviceKey, sourceID: sourceID, username: username, at: now, in: db)
                try store.setSealed(id: id, sealed: try vault.seal(password, context: Self.context(rowID: id)), in: db)
                return (id, created)
            }
        } catch {
            throw .unavailable
        }
    }

    public func account(deviceKey: String, username: String) async throws(DeviceGradebookError) -> Int64? {
        let store = self.store
        do {
            return try await transactions.read { db in try store.find(deviceKey: deviceKey, username: username, in: db)?.id }
        } catch {
            throw .unavailable
        }
    }

    public func sees(student: String, accountID: Int64, clientAddress: String?) async throws(DeviceGradebookError) -> Bool {
        let source: GradebookSource, credentials: GradebookCredentials
        do {
            let opened = try await self.credentials(id: accountID)
            source = try await sources.source(id: opened.sourceID)
            // The device's caller asks, from its address, with its share of the source.
            credentials = opened.1.presented(by: UpstreamCaller.anonymous(clientAddress: clientAddress).checkingNothing)
        } catch {
            throw .unavailable
        }
        do {
            return try await adapter.sees(student: student, credentials, source: source)
        } catch {
            throw Self.deviceError(error)
        }
    }

    /// What the protocol can say about a gradebook failure.
    static func deviceError(_ error: any Error) -> DeviceGradebookError {
        switch error {
        case GradebookError.upstreamUnauthorized: .refused
        case GradebookError.signInThrottled(_, _, let seconds), GradebookError.sourceBusy(_, _, let seconds): .throttled(retryAfterSeconds: seconds)
        default: .unavailable
        }
    }

    public func rekey(deviceKey: String, to newKey: String) async throws(DeviceGradebookError) {
        let store = self.store
        do {
            try await transactions.write { db in try store.rekey(deviceKey: deviceKey, to: newKey, in: db) }
        } catch {
            throw .unavailable
        }
    }

    public func accountCount(deviceKey: String) async throws(DeviceGradebookError) -> Int {
        let store = self.store
        do {
            return try await transactions.read { db in try store.count(deviceKey: deviceKey, in: db) }
        } catch {
            throw .unavailable
        }
    }

    public func removeAll(deviceKey: String) async throws(DeviceGradebookError) {
        let store = self.store
        do {
            try await transactions.write { db in try store.deleteAll(deviceKey: deviceKey, in: db) }
        } catch {
            throw .unavailable
        }
    }

    public func remove(id: Int64) async throws(DeviceGradebookError) {
        let store = self.store
        do {
            try await transactions.write { db in try store.delete(id: id, in: db) }
        } catch {
            throw .unavailable
        }
    }

    public func pollIntervals() async throws -> [Int64: Int] {
        try await transactions.read { [store] db in try store.pollIntervals(in: db) }
    }

    /// The opened credentials and source of a device account (polling).
    public func credentials(id: Int64) async throws -> (sourceID: Int64, GradebookCredentials) {
        let store = self.store
        let row = try await transactions.read { db in try store.row(id: id, in: db) }
        guard let row else { throw GradebookError.accountNotFound }
        do {
            // Only the polls read a device's credentials: they come out of the QuickHAC polls' budget.
            let password = try vault.open(row.sealedPassword, context: Self.context(rowID: row.id))
            return (row.sourceID, GradebookCredentials(username: row.username, password: password, caller: .quickHACPoll))
        } catch {
            throw GradebookError.vaultUnavailable
        }
    }
}

/// Device accounts' sealed passwords as key rotation sees them.
public struct DeviceAccountVaultRows: VaultRows {
    let transactions: any TransactionRunner
    let store: any DeviceAccountStoring

    public init(transactions: any TransactionRunner, store: any DeviceAccountStoring) {
        self.transactions = transactions
        self.store = store
    }

    public func sealedValues() async throws -> [(context: VaultContext, sealed: String)] {
        let store = self.store
        return try await transactions.read { db in
            try store.all(in: db).filter { !$0.sealedPassword.isEmpty }.map { (DeviceAccountService.context(rowID: $0.id), $0.sealedPassword) }
        }
    }

    public func replace(context: VaultContext, expected: String, with sealed: String) async throws -> Bool {
        let store = self.store
        return try await transactions.write { db in try store.replaceSealed(id: context.rowID, expected: expected, with: sealed, in: db) }
    }

    public func forget(context: VaultContext, expected: String) async throws -> Bool {
        let store = self.store
        return try await transactions.write { db in try store.deleteSealed(id: context.rowID, expected: expected, in: db) }
    }
}

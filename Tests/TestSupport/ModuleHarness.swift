import Foundation
public import GatewayCore
public import HummingbirdTesting
public import Jobs
public import ModuleKit
public import Storage
import Synchronization
public import SQLiteStorage
public import PostgresStorage

/// A module's HTTP suite's world: the module built by its factory on a fresh database of one
/// backend (its own tables and those of the modules whose rows it points at), mounted alone on
/// a router (``ModuleRouter``), with a manual clock and made-up accounts. Nothing else of the
/// application runs.
public struct ModuleHarness<Module: GatewayModule>: ModuleTestWorld {
    public let module: Module
    public let router: ModuleRouter<Module>
    public let transactions: any TransactionRunner
    public let backend: TestBackend.OpenedBackend
    public let clock: ManualClock
    public let cleanUpBody: @Sendable () async -> Void
    let accounts: AccountNumbers

    /// Opens a database of `backend` migrated with the given schemas, and builds the module on
    /// it with `build` (the module's `live` factory, fed its stores and fakes).
    public static func make(
        _ backend: TestBackend, label: String, sqlite: [any SchemaModule.Type], postgres: [any PostgresSchemaModule.Type],
        clock: ManualClock? = nil,
        build: (any TransactionRunner, TestBackend.OpenedBackend, ManualClock) async throws -> Module
    ) async throws -> ModuleHarness {
        let clock = clock ?? ManualClock(Date())
        let (transactions, opened, cleanUp) = try await backend.database(label, sqlite: sqlite, postgres: postgres)
        do {
            let module = try await build(transactions, opened, clock)
            return ModuleHarness(
                module: module, router: ModuleRouter(module), transactions: transactions, backend: opened, clock: clock, cleanUpBody: cleanUp,
                accounts: AccountNumbers()
            )
        } catch {
            await cleanUp()
            throw error
        }
    }

    /// A bearer token for a new made-up account with `role` (Auth is not running: the router's
    /// ``TestIdentities`` answers for it).
    public func account(_ username: String, role: Role) async throws -> String {
        router.token(accountID: accounts.next(), username: username, role: role)
    }
}

/// Account ids for made-up accounts, from 1.
final class AccountNumbers: Sendable {
    private let last = Atomic<Int64>(0)
    func next() -> Int64 { last.add(1, ordering: .relaxed).newValue }
}

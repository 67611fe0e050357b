public import Catalog
public import Contracts
public import Foundation
public import GatewayCore
public import Logging
public import Storage

/// The registration use cases: browsing the catalog, signing students up, and every
/// enrollment change.
///
/// Each enrollment change runs in ONE `pool.write` transaction that reads the state, checks
/// the rules and writes. GRDB serializes writes and SQLite holds the writer lock for the whole
/// transaction, so no two changes interleave; the schema's constraints (unique enrollments,
/// `enrolled + held <= seats`, never both enrolled and waitlisted) back the code up. Jobs
/// caused by a change (offers, notifications) are enqueued in the same transaction.
public final class RegistrationService: Sendable {
    /// Runs the transactions; ``stores`` do the storage work inside them.
    public let transactions: any TransactionRunner
    public let stores: RegistrationStores
    public let clock: any GatewayClock
    public let settings: RegistrationSettings
    /// The catalog this module enrolls students in; seat counts it changes are reported to it.
    public let catalog: CatalogService
    /// Accounts, answered by the Auth module: students are accounts, signed in through it.
    let accounts: any AccountDirectory
    let promoter: WaitlistPromoter
    let logger: Logger

    public init(
        transactions: any TransactionRunner, stores: RegistrationStores = .sqlite(), catalog: CatalogService,
        accounts: any AccountDirectory, clock: any GatewayClock, settings: RegistrationSettings = .init(),
        logger: Logger = Logger(label: "registration")
    ) {
        self.transactions = transactions
        self.stores = stores
        self.catalog = catalog
        self.accounts = accounts
        self.clock = clock
        self.settings = settings
        self.logger = logger
        self.promoter = WaitlistPromoter(settings: settings, accounts: accounts, stores: stores)
    }

    // MARK: Transactions

    /// Runs one use case in one write transaction. `touched` collects the classes whose seats
    /// may have changed; their committed counts go to the in-memory catalog afterwards. A
    /// `.failure` commits whatever the body wrote first (expired offers swept on the way).
    func write<T: Sendable>(
        _ body: @escaping @Sendable (_ db: any StoreTransaction, _ now: Date, _ touched: inout Set<Int64>) throws -> Result<T, RegistrationError>
    ) async throws -> T {
        let now = clock.now()
        let (result, counts) = try await transactions.write { db in
            var touched = Set<Int64>()
            let result = try body(db, now, &touched)
            return (result, try self.stores.catalog.seatCounts(of: touched, in: db))
        }
        catalog.apply(counts)
        return try result.get()
    }
}

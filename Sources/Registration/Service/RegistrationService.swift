import Auth
import Foundation
import GRDB
import GatewayCore
import Logging
import Storage

/// The registration use cases: browsing the catalog, signing students up, and every
/// enrollment change.
///
/// Each enrollment change runs in ONE `pool.write` transaction that reads the state, checks
/// the rules and writes. GRDB serializes writes and SQLite holds the writer lock for the whole
/// transaction, so no two changes interleave; the schema's constraints (unique enrollments,
/// `enrolled + held <= seats`, never both enrolled and waitlisted) back the code up. Jobs
/// caused by a change (offers, notifications) are enqueued in the same transaction.
public final class RegistrationService: Sendable {
    public let database: GatewayDatabase
    public let clock: any GatewayClock
    public let settings: RegistrationSettings
    public let catalog: CatalogCache
    let auth: AuthService
    let credentials: CredentialCache
    let promoter: WaitlistPromoter
    let logger: Logger

    public init(
        database: GatewayDatabase, auth: AuthService, clock: any GatewayClock, settings: RegistrationSettings = .init(),
        logger: Logger = Logger(label: "registration")
    ) throws {
        self.database = database
        self.auth = auth
        self.clock = clock
        self.settings = settings
        self.logger = logger
        self.catalog = try CatalogCache(database: database, refreshInterval: settings.catalogRefreshSeconds)
        self.credentials = CredentialCache(lifetime: settings.credentialCacheSeconds)
        self.promoter = WaitlistPromoter(settings: settings)
    }

    // MARK: Catalog

    /// Every subject with its class count, by id.
    public func subjects() async throws -> [CatalogSubject] {
        try await catalog.snapshot().index.subjects
    }

    /// The ids of the classes matching `query`, in id order.
    public func classIDs(matching query: ClassQuery) async throws -> [Int64] {
        let snapshot = try await catalog.snapshot()
        let ids = snapshot.index.ids
        return snapshot.index.matches(query, seats: snapshot.seats).map { ids[$0] }
    }

    /// One page of classes matching `query`, after class id `afterID`, and whether more follow.
    public func classes(matching query: ClassQuery, afterID: Int64?, limit: Int) async throws -> (items: [ClassListing], more: Bool) {
        let snapshot = try await catalog.snapshot()
        let slots = snapshot.index.matches(query, seats: snapshot.seats, afterID: afterID, limit: limit + 1)
        return (slots.prefix(limit).map(snapshot.listing), slots.count > limit)
    }

    /// A class with its current seats; nil when no class has this id.
    public func classListing(id: Int64) async throws -> ClassListing? {
        try await catalog.snapshot().listing(id: id)
    }

    // MARK: Transactions

    /// Runs one use case in one write transaction. `touched` collects the classes whose seats
    /// may have changed; their committed counts go to the in-memory catalog afterwards. A
    /// `.failure` commits whatever the body wrote first (expired offers swept on the way).
    func write<T: Sendable>(
        _ body: @escaping @Sendable (_ db: Database, _ now: Date, _ touched: inout Set<Int64>) throws -> Result<T, RegistrationError>
    ) async throws -> T {
        let now = clock.now()
        let (result, counts) = try await database.pool.write { db in
            var touched = Set<Int64>()
            let result = try body(db, now, &touched)
            return (result, try CatalogStore.seatCounts(of: touched, in: db))
        }
        catalog.apply(counts)
        return try result.get()
    }
}

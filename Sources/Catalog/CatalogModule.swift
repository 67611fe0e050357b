public import Foundation
public import Storage

/// The class catalog and its academic terms, built in one place from a transaction runner and
/// the module's stores. Registration and Scheduling read the catalog through ``catalog``.
public struct CatalogModule: Sendable {
    public let catalog: CatalogService
    /// The catalog's academic terms (`/v1/terms`, `/v1/admin/terms`).
    public let terms: TermService
    /// Where other instances' changes are announced (PostgreSQL), if anywhere.
    public let changes: (any CatalogChangeFeed)?

    /// The module on `stores`; the in-memory catalog is reloaded from the store every
    /// `refreshInterval` seconds at most (changes made through this process show at once).
    public static func live(transactions: any TransactionRunner, stores: CatalogStores, refreshInterval: TimeInterval) throws -> CatalogModule {
        CatalogModule(
            catalog: try CatalogService(transactions: transactions, store: stores.catalog, refreshInterval: refreshInterval),
            terms: TermService(transactions: transactions, store: stores.terms), changes: stores.changes
        )
    }

    /// Keeps the in-memory catalog following other instances' changes until cancelled (a
    /// background service of the application); returns at once without a feed.
    public func followChanges() async {
        guard let changes else { return }
        await catalog.cache.follow(changes)
    }
}

/// Everything the Catalog keeps, as one value per backend: the seam where a second backend
/// plugs in.
public struct CatalogStores: Sendable {
    public var catalog: any CatalogStoring
    public var terms: any TermStoring
    /// Other instances' changes, announced (nil on SQLite: one process serves a file).
    public var changes: (any CatalogChangeFeed)?

    public init(catalog: any CatalogStoring, terms: any TermStoring, changes: (any CatalogChangeFeed)? = nil) {
        self.catalog = catalog
        self.terms = terms
        self.changes = changes
    }

    /// The stores on the gateway's SQLite file (``CatalogSchema``'s tables).
    public static func sqlite() -> CatalogStores { CatalogStores(catalog: SQLiteCatalogStore(), terms: SQLiteTermStore()) }

    /// The stores on a PostgreSQL database (``CatalogSchema``'s PostgreSQL tables).
    public static func postgres() -> CatalogStores { CatalogStores(catalog: PostgresCatalogStore(), terms: PostgresTermStore()) }

    /// The stores on a PostgreSQL database, following the changes other instances announce.
    public static func postgres(database: GatewayPostgres) -> CatalogStores {
        CatalogStores(catalog: PostgresCatalogStore(), terms: PostgresTermStore(), changes: PostgresCatalogChangeFeed(database: database))
    }
}

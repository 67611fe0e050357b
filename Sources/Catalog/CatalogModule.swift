public import ModuleKit
public import Contracts
public import Foundation
public import GatewayHTTP
public import Hummingbird
public import Jobs
public import ServiceLifecycle
public import Storage

/// The class catalog and its academic terms, built in one place from a transaction runner and
/// the module's stores. Registration and Scheduling read the catalog through ``catalog``.
public struct CatalogModule: GatewayModule {
    /// The module's tables (its migrations are the store drivers').
    public static var schema: (any ModuleSchema.Type)? { CatalogSchema.self }

    public let catalog: CatalogService
    /// The catalog's academic terms (`/v1/terms`, `/v1/admin/terms`).
    public let terms: TermService
    /// Where other instances' changes are announced (PostgreSQL), if anywhere.
    public let changes: (any CatalogChangeFeed)?
    /// Which classes a signed-in student's friends take, for the class lists (nil: none shown).
    public let friends: (any FriendsInClasses)?

    /// The module on `stores`; the in-memory catalog is reloaded from the store every
    /// `refreshInterval` seconds at most (changes made through this process show at once).
    public static func live(
        transactions: any TransactionRunner, stores: CatalogStores, refreshInterval: TimeInterval, friends: (any FriendsInClasses)? = nil
    ) throws -> CatalogModule {
        CatalogModule(
            catalog: try CatalogService(transactions: transactions, store: stores.catalog, refreshInterval: refreshInterval),
            terms: TermService(transactions: transactions, store: stores.terms), changes: stores.changes, friends: friends
        )
    }

    /// Keeps the in-memory catalog following other instances' changes until cancelled (a
    /// background service of the application); returns at once without a feed.
    public func followChanges() async {
        guard let changes else { return }
        await catalog.cache.follow(changes)
    }

    /// The catalog's routes (``CatalogRoutes``).
    public var routes: CatalogRoutes { CatalogRoutes(catalog: catalog, terms: terms, friends: friends) }

    /// On PostgreSQL, following other instances' changes (``followChanges()``); nothing on SQLite.
    public var backgroundServices: [any Service] {
        guard changes != nil else { return [] }
        return [BackgroundTask(name: "catalog-changes") { await followChanges() }]
    }
}

/// Every HTTP route of the Catalog module: browsing at `/v1/catalog/...` and the academic terms
/// (`/v1/terms`, `/v1/admin/terms`).
public struct CatalogRoutes: ModuleRoutes {
    let catalog: CatalogService
    let terms: TermService
    let friends: (any FriendsInClasses)?

    public func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        V1CatalogRoutes(service: catalog, friends: friends).register(with: guarded, on: router)
        V1TermRoutes(service: terms).register(with: guarded, on: router)
    }
}

import Catalog
import PostgresStores
import SQLiteStores
import Storage
import TestSupport

/// The Catalog module alone on a router, on a fresh database of either backend with the
/// Catalog's tables only: what its HTTP suites run against.
typealias CatalogRoutesHarness = ModuleHarness<CatalogModule>

extension ModuleHarness where Module == CatalogModule {
    static func make(_ backend: TestBackend) async throws -> CatalogRoutesHarness {
        try await make(backend, label: "catalog-routes", sqlite: [CatalogSchema.self], postgres: [CatalogSchema.self]) { transactions, opened, _ in
            let stores: CatalogStores
            switch opened {
            case .sqlite: stores = .sqlite()
            case .postgres: stores = .postgres()
            }
            return try CatalogModule.live(transactions: transactions, stores: stores, refreshInterval: 1)
        }
    }

    /// The Catalog on `backend` with the seed's fixtures (Astronomy and Computer Science)
    /// imported through its store.
    static func withFixtures(_ backend: TestBackend) async throws -> CatalogRoutesHarness {
        let harness = try await make(backend)
        let store = harness.module.catalog.store
        _ = try await harness.transactions.write { db in try store.apply(DemoCatalog.document(size: .fixtures), options: ImportOptions(), in: db) }
        try await harness.module.catalog.reload()
        return harness
    }
}

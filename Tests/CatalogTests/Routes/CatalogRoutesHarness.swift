import Catalog
import PostgresStores
import SQLiteStores
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
}

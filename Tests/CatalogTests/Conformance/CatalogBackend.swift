import Catalog
import PostgresStores
import SQLiteStores
import Storage
import TestSupport

/// The backends the Catalog's stores run on, made fresh for each test: SQLite (a file migrated
/// with ``CatalogSchema``) and PostgreSQL (a database of the tests' throwaway cluster, with the
/// change feed that announces other instances' changes). Every backend passes
/// ``CatalogStoreConformance`` and ``TermStoreConformance`` with the same tests; those with a
/// feed pass ``CatalogChangeFeedConformance`` too.
enum CatalogBackend {
    static let sqlite = StoreBackend<CatalogStores>.sqlite("catalog-conformance", modules: [CatalogSchema.self]) { _ in .sqlite() }
    static let postgres = StoreBackend<CatalogStores>.postgres("catalog", modules: [CatalogSchema.self]) { database in
        .postgres(database: database)
    }

    static let all = [sqlite, postgres]
    /// The backends that announce changes to other instances (a SQLite file is served by one
    /// process, whose own changes reach its cache directly).
    static let withFeed = [postgres]
}

public import Catalog
public import Storage

extension CatalogStores {
    /// The stores on the gateway's SQLite file (``CatalogSchema``'s tables).
    public static func sqlite() -> CatalogStores { CatalogStores(catalog: SQLiteCatalogStore(), terms: SQLiteTermStore()) }
}

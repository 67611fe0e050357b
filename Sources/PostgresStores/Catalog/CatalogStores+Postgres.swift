public import Catalog
public import Storage
public import PostgresStorage

extension CatalogStores {
    /// The stores on a PostgreSQL database (``CatalogSchema``'s PostgreSQL tables).
    public static func postgres() -> CatalogStores { CatalogStores(catalog: PostgresCatalogStore(), terms: PostgresTermStore()) }

    /// The stores on a PostgreSQL database, following the changes other instances announce.
    public static func postgres(database: GatewayPostgres) -> CatalogStores {
        CatalogStores(catalog: PostgresCatalogStore(), terms: PostgresTermStore(), changes: PostgresCatalogChangeFeed(database: database))
    }
}

public import Storage

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
}

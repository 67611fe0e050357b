/// What another instance changed in the catalog, as the in-memory catalog needs to hear it.
public enum CatalogChange: Sendable, Equatable {
    /// These classes' seat numbers changed; read them.
    case seats([Int64])
    /// These classes' seat numbers changed to these (the notice carried them, so there is
    /// nothing to read).
    case counts([Int64: SeatCount])
    /// A new catalog version (an import, an edit): the index is rebuilt.
    case catalog
    /// Notices may have been missed (the feed just connected or reconnected): everything is
    /// read again.
    case resync
}

/// Changes made through any instance sharing the database, announced to this one
/// (``CatalogCache/follow(_:)``). On PostgreSQL, `LISTEN`/`NOTIFY`; a SQLite file is served
/// by one process, whose own changes reach its cache directly.
public protocol CatalogChangeFeed: Sendable {
    /// Calls `handle` with each change, in order, until the task is cancelled; `.resync`
    /// first and after every reconnection.
    func follow(_ handle: @escaping @Sendable (CatalogChange) async -> Void) async
}

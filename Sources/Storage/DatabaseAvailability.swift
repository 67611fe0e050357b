/// What an engine's error means to the service, in Storage's own terms: each engine target
/// (SQLiteStorage, PostgresStorage) makes its driver's errors conform, so that the HTTP layer
/// and the use cases classify errors without seeing a driver.
public protocol StorageEngineError: Error {
    /// The whole transaction was aborted for a conflict with another (PostgreSQL's
    /// serialization failure or deadlock): the unit of work must be run again from the start.
    var isConflict: Bool { get }
    /// The database can't serve this right now and may later: busy, unreachable, out of
    /// connections, starting or shutting down, or its storage refusing writes.
    var isTemporarilyUnavailable: Bool { get }
    /// The storage refuses writes (disk full, read-only file) while reads still work.
    var isStorageUnwritable: Bool { get }
    /// A value the database will not store, which only the request can have put there.
    var isUnstorableValue: Bool { get }
    /// What an operator needs, and nothing a query carried: a result code or SQLSTATE.
    var operatorSummary: String { get }
}

/// Tells an error that means "the database can't serve this right now" from one that means
/// the request or the code is wrong, on either backend: the first answers 503 with
/// `Retry-After` (a client may try again), the second 500. It knows errors only through
/// ``StorageEngineError``; any other error is none of these.
public enum DatabaseAvailability {
    /// Whether `error` aborted the whole transaction for a conflict with another (PostgreSQL's
    /// serialization failure or deadlock), so that catching it in a savepoint is not enough:
    /// the unit of work must let it through, and the runner runs the unit again from the start.
    public static func isConflict(_ error: any Error) -> Bool {
        (error as? any StorageEngineError)?.isConflict ?? false
    }

    /// What an operator needs from such an error, and nothing a query carried: SQLite's result
    /// code, or PostgreSQL's SQLSTATE and message kind.
    public static func summary(_ error: any Error) -> String {
        (error as? any StorageEngineError)?.operatorSummary ?? String(describing: type(of: error))
    }

    /// A value the database will not store, which only the request can have put there:
    /// PostgreSQL refuses text holding NUL and an index entry past its size. SQLite stores both.
    public static func isUnstorableValue(_ error: any Error) -> Bool {
        (error as? any StorageEngineError)?.isUnstorableValue ?? false
    }

    /// SQLite's storage refusing writes: the disk is full or the file or its filesystem became
    /// read-only. Nothing the request did; reads still work, and writes work again once an
    /// operator makes room, without a restart.
    public static func isStorageUnwritable(_ error: any Error) -> Bool {
        (error as? any StorageEngineError)?.isStorageUnwritable ?? false
    }

    /// Busy or locked past the busy timeout, or storage unwritable; unreachable, out of
    /// connections, shutting down or starting up, or still conflicting after every retry of a
    /// unit; or this process's connections closing.
    public static func isTemporarilyUnavailable(_ error: any Error) -> Bool {
        (error as? any StorageEngineError)?.isTemporarilyUnavailable ?? false
    }
}

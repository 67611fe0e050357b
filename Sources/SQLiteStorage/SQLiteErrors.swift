public import GRDB
public import Storage

/// SQLite's errors in Storage's taxonomy (``Storage/DatabaseAvailability``).
extension DatabaseError: StorageEngineError {
    /// SQLite has one writer: transactions never abort each other.
    public var isConflict: Bool { false }

    /// Busy or locked past the busy timeout, or its storage unwritable.
    public var isTemporarilyUnavailable: Bool {
        resultCode == .SQLITE_BUSY || resultCode == .SQLITE_LOCKED || isStorageUnwritable
    }

    /// The disk is full (`SQLITE_FULL`) or the file or its filesystem became read-only
    /// (`SQLITE_READONLY`).
    public var isStorageUnwritable: Bool { resultCode == .SQLITE_FULL || resultCode == .SQLITE_READONLY }

    /// SQLite stores what PostgreSQL refuses (NUL in text, long index entries).
    public var isUnstorableValue: Bool { false }

    /// The result code, never the statement or its arguments.
    public var operatorSummary: String { "\(resultCode)" }
}

public import PostgresNIO
public import Storage

/// PostgreSQL's errors in Storage's taxonomy (``Storage/DatabaseAvailability``).
extension PSQLError: StorageEngineError {
    public var isConflict: Bool { GatewayPostgres.isConflict(self) }

    /// Unreachable, out of connections, shutting down or starting up, or still conflicting
    /// after every retry of a unit; or this process's connections closing.
    public var isTemporarilyUnavailable: Bool {
        switch code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .poolClosed, .uncleanShutdown:
            return true
        case .server:
            guard let state = serverInfo?[.sqlState] else { return false }
            // 08: connection exceptions; 53300: too many connections; 57P01-57P03: the
            // server is shutting down or starting up; 40001/40P01: conflicts that outlasted
            // every retry of the unit.
            return state.hasPrefix("08") || ["53300", "57P01", "57P02", "57P03", "40001", "40P01"].contains(state)
        default:
            return false
        }
    }

    /// PostgreSQL reports a full disk through failing statements and connections, not as a
    /// state in which reads go on: nothing of it maps here.
    public var isStorageUnwritable: Bool { false }

    /// Text holding NUL (22021, 22P05) and an index entry past its size (54000).
    public var isUnstorableValue: Bool {
        guard code == .server, let state = serverInfo?[.sqlState] else { return false }
        return ["22021", "22P05", "54000"].contains(state)
    }

    /// The message kind and SQLSTATE, never the statement or its values.
    public var operatorSummary: String { "\(code) \(serverInfo?[.sqlState] ?? "")" }
}

extension PostgresUnavailable: StorageEngineError {
    public var isConflict: Bool { false }
    public var isTemporarilyUnavailable: Bool { true }
    public var isStorageUnwritable: Bool { false }
    public var isUnstorableValue: Bool { false }
    public var operatorSummary: String { reason }
}

extension PostgresShutDown: StorageEngineError {
    public var isConflict: Bool { false }
    public var isTemporarilyUnavailable: Bool { true }
    public var isStorageUnwritable: Bool { false }
    public var isUnstorableValue: Bool { false }
    public var operatorSummary: String { String(describing: Self.self) }
}

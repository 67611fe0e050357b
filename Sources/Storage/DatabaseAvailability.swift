import GRDB
import PostgresNIO

/// Tells an error that means "the database can't serve this right now" from one that means
/// the request or the code is wrong, on either backend: the first answers 503 with
/// `Retry-After` (a client may try again), the second 500.
public enum DatabaseAvailability {
    /// Whether `error` aborted the whole transaction for a conflict with another (PostgreSQL's
    /// serialization failure or deadlock), so that catching it in a savepoint is not enough:
    /// the unit of work must let it through, and the runner runs the unit again from the start.
    public static func isConflict(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError else { return false }
        return GatewayPostgres.isConflict(error)
    }

    /// What an operator needs from such an error, and nothing a query carried: SQLite's result
    /// code, or PostgreSQL's SQLSTATE and message kind.
    public static func summary(_ error: any Error) -> String {
        switch error {
        case let error as DatabaseError: "\(error.resultCode)"
        case let error as PostgresUnavailable: error.reason
        case let error as PSQLError: "\(error.code) \(error.serverInfo?[.sqlState] ?? "")"
        default: String(describing: type(of: error))
        }
    }

    /// A value the database will not store, which only the request can have put there:
    /// PostgreSQL refuses text holding NUL (22021, 22P05) and an index entry past its size
    /// (54000). SQLite stores both, so nothing of its maps here.
    public static func isUnstorableValue(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError, error.code == .server, let state = error.serverInfo?[.sqlState] else { return false }
        return ["22021", "22P05", "54000"].contains(state)
    }

    /// SQLite's storage refusing writes: the disk is full (`SQLITE_FULL`) or the file or its
    /// filesystem became read-only (`SQLITE_READONLY`). Nothing the request did; reads still
    /// work, and writes work again once an operator makes room, without a restart.
    public static func isStorageUnwritable(_ error: any Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return error.resultCode == .SQLITE_FULL || error.resultCode == .SQLITE_READONLY
    }

    /// SQLite busy or locked past the busy timeout, or its storage unwritable
    /// (``isStorageUnwritable(_:)``); PostgreSQL unreachable, out of connections, shutting down
    /// or starting up, or still conflicting after every retry of a unit; or this process's
    /// connections closing.
    public static func isTemporarilyUnavailable(_ error: any Error) -> Bool {
        switch error {
        case let error as DatabaseError:
            return error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED || isStorageUnwritable(error)
        case is PostgresShutDown, is PostgresUnavailable:
            return true
        case let error as PSQLError:
            switch error.code {
            case .connectionError, .serverClosedConnection, .clientClosedConnection, .poolClosed, .uncleanShutdown:
                return true
            case .server:
                guard let state = error.serverInfo?[.sqlState] else { return false }
                // 08: connection exceptions; 53300: too many connections; 57P01-57P03: the
                // server is shutting down or starting up; 40001/40P01: conflicts that outlasted
                // every retry of the unit.
                return state.hasPrefix("08") || ["53300", "57P01", "57P02", "57P03", "40001", "40P01"].contains(state)
            default:
                return false
            }
        default:
            return false
        }
    }
}

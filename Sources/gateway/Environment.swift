import Foundation
import Storage

/// `GATEWAY_*` environment variables mirror the flags: a flag wins, then the variable, then
/// the default.
enum Env {
    static func string(_ flag: String) -> String? {
        let name = "GATEWAY_" + flag.uppercased().replacingOccurrences(of: "-", with: "_")
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
        return value
    }

    /// The database location from `--database`, else `GATEWAY_DATABASE`, else the default file,
    /// as a SQLite path. A `postgres://` URL is recognised (and its password never printed), but
    /// not every module has its PostgreSQL stores yet, so it is refused with a clear error rather
    /// than taken for a file name; any other URL scheme is refused too.
    static func sqliteDatabasePath(_ option: String?) throws -> String {
        let location: DatabaseLocation
        do {
            location = try DatabaseLocation.parse(option ?? string("database") ?? defaultDatabasePath)
        } catch let error as DatabaseLocationError {
            throw GatewayCLIError("--database: \(error)")
        }
        switch location {
        case .sqlite(let path):
            return path
        case .postgres(let settings):
            throw GatewayCLIError(
                "--database \(settings): PostgreSQL is not available in this build yet (Push has no PostgreSQL stores so far; see docs/postgres.md). Give a SQLite file path."
            )
        }
    }

    static func bool(_ flag: String) -> Bool {
        ["1", "true", "yes", "on"].contains(string(flag)?.lowercased() ?? "")
    }

    static func int(_ flag: String) throws -> Int? {
        guard let raw = string(flag) else { return nil }
        guard let value = Int(raw) else {
            throw GatewayCLIError("GATEWAY_\(flag.uppercased().replacingOccurrences(of: "-", with: "_")) must be an integer, not '\(raw)'")
        }
        return value
    }
}

/// A one-line error the CLI prints before exiting 2.
struct GatewayCLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

let defaultDatabasePath = "./data/gateway.sqlite"

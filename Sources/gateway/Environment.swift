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

    /// The database from `--database`, else `GATEWAY_DATABASE`, else the default file: a
    /// SQLite path, or a `postgres://` / `postgresql://` URL. Checked here, so that a mistyped
    /// URL is a clear error (its password never printed) rather than a file name.
    static func database(_ option: String?) throws -> String {
        let value = option ?? string("database") ?? defaultDatabasePath
        do {
            _ = try DatabaseLocation.parse(value)
        } catch let error as DatabaseLocationError {
            throw GatewayCLIError("--database: \(error)")
        }
        return value
    }

    /// ``database(_:)`` parsed.
    static func databaseLocation(_ option: String?) throws -> DatabaseLocation {
        try DatabaseLocation.parse(database(option))
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

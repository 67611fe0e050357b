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

    /// A yes/no variable: `1`, `true`, `yes`, `on` or `0`, `false`, `no`, `off` (any case);
    /// unset is false, and anything else stops the start naming the variable (a silent false
    /// for `GATEWAY_REQUIRE_HTTPS=enabled` would serve plain HTTP).
    static func bool(_ flag: String) throws -> Bool {
        guard let raw = string(flag) else { return false }
        switch raw.trimmingCharacters(in: .whitespaces).lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default:
            throw GatewayCLIError("\(variable(flag)) must be 1, true, yes or on, or 0, false, no or off, not '\(raw)'")
        }
    }

    /// `GATEWAY_REQUIRE_HTTPS` for `require-https`.
    static func variable(_ flag: String) -> String { "GATEWAY_" + flag.uppercased().replacingOccurrences(of: "-", with: "_") }

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

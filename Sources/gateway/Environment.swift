import Foundation

/// `GATEWAY_*` environment variables mirror the flags: a flag wins, then the variable, then
/// the default.
enum Env {
    static func string(_ flag: String) -> String? {
        let name = "GATEWAY_" + flag.uppercased().replacingOccurrences(of: "-", with: "_")
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
        return value
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

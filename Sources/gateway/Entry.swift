import ArgumentParser
import Foundation
import GatewayApp
import GatewayCore
import Logging

/// Runs the command line. Bad flags print one line to stderr and exit 2; `--help` exits 0.
@main
struct Entry {
    static func main() async {
        MemoryTuning.returnLargeBlocksToTheSystem(environment: ProcessInfo.processInfo.environment)
        do {
            var command = try Gateway.parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = Gateway.exitCode(for: error)
            if code == .success {
                Gateway.exit(withError: error)
            }
            let message = Gateway.message(for: error)
                .split(separator: "\n").first.map(String.init) ?? "\(error)"
            if let format = Self.requestedLogFormat(), format != .text {
                // A collector reading this process's output gets the refusal in its format.
                let line = format.line(
                    timestamp: GatewayLogHandler.timestamp(), level: .critical, label: "campus-gateway", source: "gateway",
                    message: "gateway: \(message)", fields: []
                )
                FileHandle.standardError.write(Data(line.utf8))
            } else {
                FileHandle.standardError.write(Data("gateway: \(message)\n".utf8))
            }
            exit(code == .validationFailure ? 2 : (code.rawValue == 0 ? 1 : (code.rawValue == 64 ? 2 : code.rawValue)))
        }
    }
}

extension Entry {
    /// The log format a `serve` command line or `GATEWAY_LOG_FORMAT` asks for, read without the
    /// parser (whose refusal is what is being reported).
    static func requestedLogFormat() -> LogFormat? {
        let arguments = CommandLine.arguments
        for (index, argument) in arguments.enumerated() {
            if argument.hasPrefix("--log-format=") { return LogFormat(rawValue: String(argument.dropFirst("--log-format=".count)).lowercased()) }
            if argument == "--log-format", index + 1 < arguments.count { return LogFormat(rawValue: arguments[index + 1].lowercased()) }
        }
        return ProcessInfo.processInfo.environment["GATEWAY_LOG_FORMAT"].flatMap { LogFormat(rawValue: $0.lowercased()) }
    }
}

struct Gateway: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: "Campus Gateway: registration, schedules, gradebooks and push for student apps.",
        discussion: """
            Every setting can also come from an environment variable: GATEWAY_ and the flag in upper case (for example \
            GATEWAY_DATABASE), for every flag of serve, every --database, and the vault key file. One-off arguments of a \
            single run (what to copy or import and where, a new user's fields, job list filters, --json) are flags only.
            """,
        version: "campus-gateway \(BuildInfo.current.description)",
        subcommands: [Serve.self, Migrate.self, CopyDatabase.self, Backup.self, Admin.self, Jobs.self, ImportCatalog.self, ImportRatings.self, Vault.self]
    )
}

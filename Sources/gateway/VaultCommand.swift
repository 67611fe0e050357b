import ArgumentParser
import Foundation
import GatewayApp
import Gradebook
import Logging

/// `gateway vault`: the credential vault that seals stored gradebook passwords and devices' keys.
struct Vault: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The credential vault (sealed gradebook passwords, webhook secrets and Web Push keys).",
        subcommands: [RotateKey.self, ForgetUnreadable.self]
    )
}

/// `gateway vault rotate-key`: a new key, every sealed row re-encrypted under it, the old key
/// removed; safe while the server runs (it reloads the key file when it meets a new key id).
struct RotateKey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate-key",
        abstract: "Generate a new vault key and re-encrypt every stored password and device key under it.",
        discussion: """
            With the key file (the default, <database>.vault-keys), the new key is added first, every \
            row is re-sealed under it (rows changed meanwhile are retried), then the old keys are \
            removed. With GATEWAY_VAULT_KEY, put the new key there and the old one in \
            GATEWAY_VAULT_PREVIOUS_KEYS, then run this with --env: rows are re-sealed under the \
            current environment key.
            """
    )

    @Option(help: "A SQLite file, or a postgres:// URL (GATEWAY_DATABASE). Default: ./data/gateway.sqlite") var database: String?
    @Option(name: [.customLong("vault-key-file"), .customLong("key-file")], help: "The vault key file, as serve has it (GATEWAY_VAULT_KEY_FILE). Default: <database>.vault-keys, unless GATEWAY_VAULT_KEY is set") var keyFile: String?
    @Flag(help: "Keys come from GATEWAY_VAULT_KEY: re-seal every row under the current one.") var env = false

    func run() async throws {
        let app = try vaultApplication(database: database, keyFile: keyFile)
        let rows = app.modules.vaultRows
        let rotation = VaultRotation()
        let report = env
            ? try await rotation.resealUnderCurrentKey(source: app.modules.vault.source, rows: rows)
            : try await rotation.rotateKey(source: app.modules.vault.source, rows: rows)
        print(report)
    }
}

/// `gateway vault forget-unreadable`: deletes the stored accounts whose sealed passwords, and the
/// webhook and Web Push devices whose sealed keys, no key of the vault opens (the key was lost).
/// The server refuses to start while any exist.
struct ForgetUnreadable: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget-unreadable",
        abstract: "Delete stored gradebook accounts and notification devices whose secrets no vault key opens.",
        discussion: """
            When the vault's key is lost, stored accounts can't be read and the server refuses to \
            start. Restore the key if you can; otherwise this deletes those accounts and webhook or \
            Web Push devices (students and devices add them again). Without --yes it only counts them.
            """
    )

    @Option(help: "A SQLite file, or a postgres:// URL (GATEWAY_DATABASE). Default: ./data/gateway.sqlite") var database: String?
    @Option(name: [.customLong("vault-key-file"), .customLong("key-file")], help: "The vault key file, as serve has it (GATEWAY_VAULT_KEY_FILE). Default: <database>.vault-keys, unless GATEWAY_VAULT_KEY is set") var keyFile: String?
    @Flag(help: "Delete them (without it, only count them).") var yes = false

    func run() async throws {
        let app = try vaultApplication(database: database, keyFile: keyFile)
        let audit = VaultAudit()
        let report = try await audit.audit(rows: app.modules.vaultRows, ring: app.modules.vault.ring)
        guard yes else {
            print("\(report.unreadable.count) of \(report.checked) stored credentials can't be opened; run again with --yes to delete them.")
            return
        }
        let forgotten = try await audit.forget(report)
        print("Deleted \(forgotten) stored accounts and devices whose secrets could not be opened (\(report.checked - report.unreadable.count) kept).")
    }
}

/// The application the vault commands work on: the database (the option, GATEWAY_DATABASE or
/// the default) and its vault key file (the option, GATEWAY_VAULT_KEY_FILE as `serve` reads it,
/// or the default beside the database), logging errors only.
func vaultApplication(database: String?, keyFile: String?) throws -> GatewayApplication {
    var configuration = GatewayConfiguration()
    configuration.databasePath = try Env.database(database)
    configuration.vaultKeyFile = keyFile ?? Env.string("vault-key-file")
    configuration.logLevel = .error
    return try GatewayApplication(configuration: configuration)
}

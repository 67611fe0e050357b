import ArgumentParser
import Foundation
import GatewayApp
import Gradebook
import Logging

/// `gateway vault`: the credential vault that seals stored gradebook passwords.
struct Vault: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The credential vault (sealed gradebook passwords, webhook secrets and Web Push keys).",
        subcommands: [RotateKey.self]
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

    @Option(help: "SQLite database file (GATEWAY_DATABASE). Default: ./data/gateway.sqlite") var database: String?
    @Option(help: "The vault key file. Default: <database>.vault-keys") var keyFile: String?
    @Flag(help: "Keys come from GATEWAY_VAULT_KEY: re-seal every row under the current one.") var env = false

    func run() async throws {
        var configuration = GatewayConfiguration()
        configuration.databasePath = database ?? Env.string("database") ?? defaultDatabasePath
        configuration.vaultKeyFile = keyFile
        configuration.logLevel = .error
        let app = try GatewayApplication(configuration: configuration)
        let rows = app.vaultRows
        let rotation = VaultRotation()
        let report = env
            ? try await rotation.resealUnderCurrentKey(source: app.vault.source, rows: rows)
            : try await rotation.rotateKey(source: app.vault.source, rows: rows)
        print(report)
    }
}

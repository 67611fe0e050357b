import GatewayHTTP
public import ArgumentParser
import Auth
import Foundation
import GatewayApp
public import GatewayCore

struct Admin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Operator commands that work on the database directly.",
        subcommands: [CreateUser.self]
    )
}

struct CreateUser: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create-user",
        abstract: "Create an account of any role. Without --password, the password is read from stdin."
    )

    @Option(help: "A SQLite file, or a postgres:// URL (GATEWAY_DATABASE). Default: ./data/gateway.sqlite") var database: String?
    @Option(help: "Username or email address.") var username: String
    @Option(help: "Password (prefer stdin: a flag shows up in the process list and shell history).") var password: String?
    @Option(help: "student, operator, instructor or admin.") var role: Role
    @Option(help: "Email address (optional).") var email: String?

    func run() async throws {
        var config = GatewayConfiguration()
        config.databasePath = try Env.database(database)
        let secret: String
        if let password {
            secret = password
        } else {
            guard let line = readLine(strippingNewline: true), !line.isEmpty else {
                throw GatewayCLIError("no password given: pass --password or write it to stdin")
            }
            secret = line
        }
        let app = try GatewayApplication(configuration: config)
        do {
            let account = try await app.modules.auth.service.createAccount(username: username, email: email, password: secret, role: role)
            print("Created \(account.role.rawValue) '\(account.username)' (id \(account.id ?? 0)).")
        } catch let error as any ProblemConvertible {
            throw GatewayCLIError(error.problem.description)
        }
    }
}

extension Role: ExpressibleByArgument {}

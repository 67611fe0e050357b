import Auth
import Foundation
import GatewayApp
import GatewayCore
import Logging

/// The whole application as `serve --demo` runs it, on a fresh SQLite file: the gradebook
/// simulator mounted in this process as source 1, a manual clock and cheap password hashing.
enum DemoGateway {
    /// The simulator's password for every demo user.
    static let password = "gradebook-test-1"

    static func basic(_ user: String, _ password: String) -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// The application and the folder of its database (the test removes it).
    static func make(logger: Logger? = nil) throws -> (GatewayApplication, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-test-\(UUID().uuidString)")
        var config = GatewayConfiguration()
        config.databasePath = directory.appendingPathComponent("gateway.sqlite").path
        config.passwordHashing = .init(memoryKiB: 1024, iterations: 1, parallelism: 1)
        config.logLevel = logger == nil ? .critical : .trace
        config.demo = true
        config.port = 0
        config.environment = [:]
        let app = try GatewayApplication(configuration: config, clock: ManualClock(Date()), logger: logger)
        return (app, directory)
    }
}

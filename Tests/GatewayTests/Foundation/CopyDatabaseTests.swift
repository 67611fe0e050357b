import Foundation
import GatewayApp
import GatewayCore
import HTTPTypes
import Jobs
import Gradebook
import Storage
import TestSupport
import Testing

/// `gateway copy-database`: a SQLite deployment moves onto PostgreSQL with nothing lost, and
/// the copy goes on working there (the same passwords, sealed secrets and ids).
@Suite("Copying SQLite into PostgreSQL")
struct CopyDatabaseTests {
    @Test func aSQLiteDeploymentServesTheSameOnPostgreSQLAfterTheCopy() async throws {
        // The SQLite deployment, with its vault key in the environment as it will be on PostgreSQL.
        let key = TestGateway.postgresVaultKey
        let sqlite = try await TestGateway.registration(.sqlite) { config in
            config.environment[VaultKeySource.keyVariable] = key
            config.allowInsecurePushEndpoints = true
            config.jobs.workersEnabled = false
        }
        defer { sqlite.cleanUp() }
        let ada = try await sqlite.account("ada", role: .student)
        let admin = try await sqlite.account("root", role: .admin)
        let captured = Captured([String: String]())
        try await sqlite.withRouter { client async throws in
            #expect(try await client.json(
                .put, "/v1/me/registration/profile", body: #"{"redId":"822326003","firstName":"Ada","lastName":"Lovelace","email":"ada@sdsu.edu"}"#, token: ada
            ).status == .ok)
            #expect(try await client.json(.post, "/v1/me/registration/enrollments", body: #"{"classId":7030}"#, token: ada).status == .created)
            #expect(try await client.json(
                .post, "/v1/me/devices", body: #"{"channel":"webhook","name":"hook","url":"http://127.0.0.1:9/hook"}"#, token: ada
            ).status == .created)
            #expect(try await client.json(.post, "/v1/me/schedules", body: #"{"name":"plan","term":"2018-fall","classIds":[7030]}"#, token: ada).status == .created)
            #expect(try await client.json(.post, "/v1/admin/jobs", body: #"{"kind":"diagnostics.noop"}"#, token: admin).status == .created)
            var bodies: [String: String] = [:]
            for path in ["/v1/me/registration", "/v1/me/devices", "/v1/me/schedules", "/v1/registration/classes/7030"] {
                bodies[path] = try await client.json(.get, path, token: ada).body
            }
            captured.set(bodies)
        }
        // Copy into an empty PostgreSQL database, through the real command.
        let url = try await PostgresCluster.start().database("copy")
        let copied = try await GatewayBinary.run(
            ["copy-database", "--from", sqlite.app.configuration.databasePath, "--to", url], environment: [VaultKeySource.keyVariable: key]
        )
        #expect(copied.status == 0, "\(copied.stderr)")
        #expect(copied.stdout.contains("accounts: 2"), "\(copied.stdout)")
        // A second copy into the same database is refused, and writes nothing.
        let again = try await GatewayBinary.run(["copy-database", "--from", sqlite.app.configuration.databasePath, "--to", url])
        #expect(again.status != 0 && again.stderr.contains("already holds data"), "\(again.stderr)")

        let before = captured.value
        let postgres = try await PostgresCluster.offThread {
            try TestGateway { config in
                config.databasePath = url
                config.environment[VaultKeySource.keyVariable] = key
                config.jobs.workersEnabled = false
            }
        }
        defer { postgres.cleanUp() }
        try await postgres.withRouter { client async throws in
            // The same password signs in, and the same answers come back.
            let issued = try await client.json(.post, "/v1/auth/token", body: #"{"username":"ada","password":"correct horse battery"}"#)
            #expect(issued.status == .created)
            let token = try #require(issued.object["token"] as? String)
            for (path, body) in before {
                let now = try await client.json(.get, path, token: token)
                #expect(now.status == .ok)
                #expect(Self.withoutVolatile(now.body) == Self.withoutVolatile(body), "\(path)")
            }
            // New rows take new ids after the copied ones.
            let made = try await client.json(.post, "/v1/accounts", body: #"{"username":"grace","password":"a fine passphrase"}"#)
            #expect(made.status == .created && (made.object["id"] as? Int ?? 0) > 2, "\(made.body)")
        }
        // The webhook's sealed secret opens under the same key on PostgreSQL.
        let report = try await VaultAudit().audit(rows: postgres.app.vaultRows, ring: postgres.app.vault.ring)
        #expect(report.checked >= 1 && report.unreadable.isEmpty)
    }

    /// Request ids and such differ between two answers of the same state.
    static func withoutVolatile(_ body: String) -> String {
        body.replacingOccurrences(of: #""requestId":"[0-9a-f]+""#, with: "", options: .regularExpression)
    }
}

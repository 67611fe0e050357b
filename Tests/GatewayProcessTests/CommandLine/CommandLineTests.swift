import Foundation
import Testing
import TestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("The gateway command line", .serialized)
struct CommandLineTests {
    static func tempDatabase() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)/db.sqlite").path
    }

    @Test func helpIsClearAndExitsZero() async throws {
        let top = try await GatewayBinary.run(["--help"])
        #expect(top.status == 0)
        for command in ["serve", "migrate", "admin"] { #expect(top.stdout.contains(command)) }
        let serve = try await GatewayBinary.run(["serve", "--help"])
        #expect(serve.status == 0)
        for flag in ["--host", "--port", "--database", "--demo", "--tls-cert", "--tls-key", "--require-https", "--sdsu-term"] {
            #expect(serve.stdout.contains(flag), "serve --help mentions \(flag)")
        }
    }

    @Test(arguments: [
        ["--bogus"], ["serve", "--port", "eighty"], ["serve", "--tls-cert", "a.pem"], ["admin", "create-user", "--role", "wizard", "--username", "x"],
    ])
    func badFlagsPrintOneLineAndExit2(arguments: [String]) async throws {
        let outcome = try await GatewayBinary.run(arguments)
        #expect(outcome.status == 2)
        let lines = outcome.stderr.split(separator: "\n")
        #expect(lines.count == 1, "stderr was: \(outcome.stderr)")
        #expect(outcome.stderr.hasPrefix("gateway: "))
    }

    /// Plain-http and private push endpoints are for a demo on one machine: never on a
    /// production database.
    @Test func insecurePushEndpointsNeedTheDemo() async throws {
        let outcome = try await GatewayBinary.run(["serve", "--allow-insecure-push-endpoints", "--database", Self.tempDatabase()])
        #expect(outcome.status != 0)
        #expect(outcome.stderr.contains("--demo"), "stderr was: \(outcome.stderr)")
    }

    @Test func aMalformedSDSUTermIsRefusedBeforeServing() async throws {
        let outcome = try await GatewayBinary.run(["serve", "--database", Self.tempDatabase(), "--sdsu-term", "fall 2018"])
        #expect(outcome.status != 0)
        #expect(outcome.stderr.hasPrefix("gateway: --sdsu-term"), "stderr was: \(outcome.stderr)")
    }

    @Test func migrateThenCreateUserFromStdin() async throws {
        let db = Self.tempDatabase()
        let migrate = try await GatewayBinary.run(["migrate", "--database", db])
        #expect(migrate.status == 0)
        #expect(migrate.stdout.contains("Applied"))
        let again = try await GatewayBinary.run(["migrate", "--database", db])
        #expect(again.stdout.contains("up to date"))
        let created = try await GatewayBinary.run(
            ["admin", "create-user", "--database", db, "--username", "ops", "--role", "admin"], stdin: "a long admin passphrase\n"
        )
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.contains("admin 'ops'"))
        let duplicate = try await GatewayBinary.run(
            ["admin", "create-user", "--database", db, "--username", "ops", "--role", "admin", "--password", "another passphrase"]
        )
        #expect(duplicate.status != 0)
        #expect(duplicate.stderr.contains("already exists"))
        let weak = try await GatewayBinary.run(["admin", "create-user", "--database", db, "--username", "x1", "--role", "student", "--password", "short"])
        #expect(weak.status != 0)
    }

    @Test func serveAnswersHealthAndStopsOnSIGTERM() async throws {
        let db = Self.tempDatabase()
        let server = try await ServingGateway.started(arguments: ["--database", db, "--demo"])
        #expect(await server.waitUntilServing())
        let health = await server.get("/healthz")
        #expect(health?.0 == 200)
        let ready = await server.get("/readyz")
        #expect(ready?.0 == 200)
        #expect(server.terminate() == 0)
    }

    @Test func environmentVariablesMirrorFlags() async throws {
        let db = Self.tempDatabase()
        let outcome = try await GatewayBinary.run(["migrate"], environment: ["GATEWAY_DATABASE": db])
        #expect(outcome.status == 0)
        #expect(FileManager.default.fileExists(atPath: db))
    }

    /// A PostgreSQL URL is never taken for a file name (no `postgres:` folder beside an empty
    /// SQLite file): until every module has its PostgreSQL stores it is refused, with the URL
    /// shown without its password; other schemes are refused too.
    @Test func databaseURLsAreNeverTakenForFileNamesAndTheirPasswordsNeverShown() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("database-urls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (arguments, environment) in [
            // Port 1 on loopback: nothing listens, so the connection is refused at once.
            (["migrate", "--database", "postgres://ops:s3cret-pass@127.0.0.1:1/campus"], [String: String]()),
            (["migrate"], ["GATEWAY_DATABASE": "postgresql://ops:s3cret-pass@127.0.0.1:1/campus"]),
            (["jobs", "list", "--database", "postgres://ops:s3cret-pass@127.0.0.1:1/campus"], [:]),
            (["migrate", "--database", "postgres://ops@127.0.0.1:1/campus"], ["PGPASSWORD": "s3cret-pass"]),
        ] {
            let outcome = try await GatewayBinary.run(arguments, environment: environment, directory: folder)
            #expect(outcome.status != 0)
            #expect(outcome.stderr.contains("PostgreSQL") && outcome.stderr.contains("ops@127.0.0.1:1/campus"), "\(outcome.stderr)")
            #expect(!outcome.stderr.contains("s3cret-pass") && !outcome.stdout.contains("s3cret-pass"), "the password is never shown")
        }
        let mysql = try await GatewayBinary.run(["migrate", "--database", "mysql://ops@db/campus"], directory: folder)
        #expect(mysql.status != 0 && mysql.stderr.contains("\"mysql\" is not supported"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty, "no folder or file was made")
    }
}

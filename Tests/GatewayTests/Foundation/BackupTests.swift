import Foundation
import GRDB
import Synchronization
import TestSupport
import Testing

/// `gateway backup` while the server serves sign-ups: the copy passes the integrity check, and
/// every account the server confirmed before the backup began is in it (a restore drill).
@Suite("Backups of a live SQLite database", .serialized)
struct BackupTests {
    @Test func aBackupTakenUnderLoadIsWholeAndHoldsEveryConfirmedWrite() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-backup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let live = directory.appendingPathComponent("live.sqlite").path
        let copy = directory.appendingPathComponent("copy.sqlite").path
        let server = try ServingGateway(arguments: ["--database", live, "--signups-per-hour", "100000"], lifetime: 300)
        defer { _ = server.terminate() }

        // Sign-ups keep coming while the backup runs; the backup starts once some are confirmed.
        let confirmed = Confirmed()
        let load = Task {
            for n in 0..<400 where !Task.isCancelled {
                let name = "backup-student-\(n)"
                // Cancelled at the end: the request in flight then fails, and the loop stops.
                guard let reply = try? await MultiInstanceSlowTests.send(
                    server, "POST", "/v1/accounts", body: #"{"username":"\#(name)","password":"a long enough passphrase \#(n)"}"#
                ) else { break }
                if reply.status == 201 { confirmed.add(name) }
            }
        }
        #expect(try await eventually(seconds: 120) { confirmed.names.count >= 3 }, "sign-ups are being confirmed")
        let before = confirmed.names
        let backup = try GatewayBinary.run(["backup", "--database", live, "--to", copy])
        #expect(backup.status == 0, "\(backup.stderr)")
        load.cancel()
        _ = await load.value
        #expect(!before.isEmpty)

        let restored = try DatabaseQueue(path: copy)
        let (integrity, names) = try await restored.read { db in
            (try String.fetchOne(db, sql: "PRAGMA integrity_check"), Set(try String.fetchAll(db, sql: "SELECT username FROM accounts")))
        }
        #expect(integrity == "ok")
        #expect(before.allSatisfy(names.contains), "every sign-up confirmed before the backup is in the copy")
        try restored.close()

        // The restored copy serves: a confirmed student signs in on it.
        let restoredServer = try ServingGateway(arguments: ["--database", copy], lifetime: 120)
        defer { _ = restoredServer.terminate() }
        let name = try #require(before.first)
        let n = name.split(separator: "-").last!
        let signIn = try await MultiInstanceSlowTests.send(
            restoredServer, "POST", "/v1/auth/token", body: #"{"username":"\#(name)","password":"a long enough passphrase \#(n)"}"#
        )
        #expect(signIn.status == 201, "\(signIn.body)")

        // An existing file is never overwritten, and PostgreSQL is pointed at its own tools.
        let again = try GatewayBinary.run(["backup", "--database", live, "--to", copy])
        #expect(again.status != 0 && again.stderr.contains("exists"))
        let postgres = try GatewayBinary.run(["backup", "--database", "postgres://gateway@127.0.0.1:1/none", "--to", copy + "2"])
        #expect(postgres.status != 0 && postgres.stderr.contains("pg_dump"))
    }
}

/// The sign-ups the server confirmed so far, in order.
private final class Confirmed: Sendable {
    private let list = Mutex<[String]>([])
    func add(_ name: String) { list.withLock { $0.append(name) } }
    var names: [String] { list.withLock { $0 } }
}

import Foundation
import GRDB
import Synchronization
import TestSupport
import Testing

/// `gateway backup` while the server serves: under sign-ups, every account the server confirmed
/// before the backup began is in the copy; under registrations, the copy keeps every invariant
/// of the crash drill. Either way it passes the integrity check and serves (restore drills).
@Suite("Backups of a live SQLite database", .serialized)
struct BackupTests {
    /// The live database and the backup's path in `directory`.
    static func files(in directory: URL) -> (live: String, copy: String) {
        (directory.appendingPathComponent("live.sqlite").path, directory.appendingPathComponent("copy.sqlite").path)
    }

    @Test func aBackupTakenUnderLoadIsWholeAndHoldsEveryConfirmedWrite() async throws {
        let directory = try Drill.scratchDirectory("gateway-backup")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (live, copy) = Self.files(in: directory)
        let server = try await ServingGateway.started(arguments: ["--database", live, "--signups-per-hour", "100000"], lifetime: 300)
        defer { _ = server.terminate() }

        // Sign-ups keep coming while the backup runs; the backup starts once some are confirmed.
        let confirmed = Confirmed()
        // Stopped by a flag, never by cancelling the task: cancelling a task inside
        // FoundationNetworking's `URLSession.data(for:)` as its transfer completes can deadlock
        // the session's queue (and with it a thread of the cooperative pool, on 2 cores all of
        // the tests). The request in flight finishes; the loop then ends.
        let stop = Atomic<Bool>(false)
        let load = Task {
            for n in 0..<400 where !stop.load(ordering: .acquiring) {
                let name = "backup-student-\(n)"
                guard let reply = try? await MultiInstanceSlowTests.send(
                    server, "POST", "/v1/accounts", body: #"{"username":"\#(name)","password":"a long enough passphrase \#(n)"}"#
                ) else { break }
                if reply.status == 201 { confirmed.add(name) }
            }
        }
        #expect(try await eventually(seconds: 120) { confirmed.names.count >= 3 }, "sign-ups are being confirmed")
        let before = confirmed.names
        let backup = try await GatewayBinary.run(["backup", "--database", live, "--to", copy])
        #expect(backup.status == 0, "\(backup.stderr)")
        stop.store(true, ordering: .releasing)
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
        let restoredServer = try await ServingGateway.started(arguments: ["--database", copy], lifetime: 120)
        defer { _ = restoredServer.terminate() }
        let name = try #require(before.first)
        let n = name.split(separator: "-").last!
        let signIn = try await MultiInstanceSlowTests.send(
            restoredServer, "POST", "/v1/auth/token", body: #"{"username":"\#(name)","password":"a long enough passphrase \#(n)"}"#
        )
        #expect(signIn.status == 201, "\(signIn.body)")

        // An existing file is never overwritten, and PostgreSQL is pointed at its own tools.
        let again = try await GatewayBinary.run(["backup", "--database", live, "--to", copy])
        #expect(again.status != 0 && again.stderr.contains("exists"))
        let postgres = try await GatewayBinary.run(["backup", "--database", "postgres://gateway@127.0.0.1:1/none", "--to", copy + "2"])
        #expect(postgres.status != 0 && postgres.stderr.contains("pg_dump"))
    }

    /// The restore drill under the crash drill's registration load (SDSU students registering,
    /// dropping, joining and leaving waitlists of 3-seat classes, saving schedules): writes go
    /// on while the backup runs, and the copy keeps every invariant the crash drill checks: the
    /// integrity and foreign-key checks pass, no class holds more students than seats, and each
    /// class's counters agree with its rows. Then the copy serves.
    @Test func aBackupTakenUnderRegistrationLoadKeepsEveryInvariant() async throws {
        let directory = try Drill.scratchDirectory("gateway-backup")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (live, copy) = Self.files(in: directory)
        let server = try await CrashDrillSlowTests.serve(live)
        defer { server.kill9() }
        let admin = try #require(await Drill.token(port: server.port, "admin", "demo-admin-pass"))
        let classes = try await CrashDrillSlowTests.makeSmallClasses(port: server.port, admin: admin)
        let tokens = try await CrashDrillSlowTests.signUpStudents(ports: [server.port])

        let target = CrashDrillSlowTests.Target()
        target.set(0, port: server.port)
        let load = Task {
            await withTaskGroup(of: Void.self) { group in
                for (n, token) in tokens.enumerated() {
                    group.addTask { _ = await CrashDrillSlowTests.student(n, token: token, classes: classes, target: target) }
                }
            }
        }
        #expect(await eventually(seconds: 60) { target.tally.withLock { $0.added } >= 5 }, "registrations are being acknowledged")
        let before = target.tally.withLock { $0.acknowledged }
        let backup = try await GatewayBinary.run(["backup", "--database", live, "--to", copy])
        #expect(backup.status == 0, "\(backup.stderr)")
        // The load goes on after the backup: writes are acknowledged past the count at its end
        // (not a pause of some length, which proves nothing on a loaded machine). Then stop.
        let atBackupEnd = target.tally.withLock { $0.acknowledged }
        #expect(
            await eventually(seconds: 60) { target.tally.withLock { $0.acknowledged } > atBackupEnd },
            "writes are acknowledged after the backup (\(atBackupEnd) at its end)"
        )
        target.stop.store(true, ordering: .releasing)
        await load.value
        let tally = target.tally.withLock { $0 }
        #expect(tally.unexpected.isEmpty, "\(tally.unexpected.prefix(5))")
        // The load never stopped for the backup: no answer outside 200/201/503, and writes were
        // still acknowledged from its start to the load's end.
        #expect(tally.acknowledged > before, "writes went on from the backup's start: \(before) then \(tally.acknowledged)")

        let snapshot = try CrashDrillSlowTests.Snapshot(path: copy, students: CrashDrillSlowTests.students, classes: classes)
        #expect(snapshot.integrity == ["ok"])
        #expect(snapshot.foreignKeyViolations == 0)
        #expect(snapshot.overfullClasses == 0)
        #expect(snapshot.classes.count == classes.count, "every class is in the copy")
        for (id, row) in snapshot.classes {
            #expect(row.rows <= row.seats, "class \(id): \(row.rows) enrolled in \(row.seats) seats")
            #expect(row.enrolled == row.baseEnrolled + row.rows, "class \(id)'s enrolled counter: \(row)")
            #expect(row.waitlist == row.baseWaitlist + row.line, "class \(id)'s waitlist counter: \(row)")
        }
        #expect(snapshot.redIDs.isSuperset(of: (0..<CrashDrillSlowTests.students).map(CrashDrillSlowTests.redID)), "every student signed up before the load")
        #expect(!snapshot.enrolled.isEmpty, "the copy holds registrations")

        // The copy serves (a demo database, so with --demo), and its students sign in. As a
        // restore does (docs/operations.md), the vault key file goes beside it: the demo student's
        // stored gradebook accounts are sealed with it, and without it the copy refuses to serve.
        server.kill9()
        try FileManager.default.copyItem(atPath: live + ".vault-keys", toPath: copy + ".vault-keys")
        let restored = try await CrashDrillSlowTests.serve(copy)
        defer { restored.kill9() }
        let signIn = await Drill.send(port: restored.port, "GET", "/registration/studentclasses?\(CrashDrillSlowTests.credentials(CrashDrillSlowTests.redID(0)))")
        #expect(signIn?.status == 200 && signIn?.error == nil, "\(signIn?.body ?? "no answer")")
    }
}

/// The sign-ups the server confirmed so far, in order.
private final class Confirmed: Sendable {
    private let list = Mutex<[String]>([])
    func add(_ name: String) { list.withLock { $0.append(name) } }
    var names: [String] { list.withLock { $0 } }
}

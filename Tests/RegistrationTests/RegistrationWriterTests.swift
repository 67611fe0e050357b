import Catalog
import Contracts
import Foundation
import GRDB
import PostgresNIO
import PostgresStores
@testable import Registration
import SQLiteStores
import Storage
import TestSupport
import Testing
import SQLiteStorage
import PostgresStorage

/// How registrations reach the database, on the module alone (``RegistrationHarness``). On
/// SQLite, group commit: callers queued behind a running transaction share the next one, each
/// in its own savepoint. On PostgreSQL, a transaction per unit, and no unit waits for another
/// that locks other rows.
@Suite("Registration group commit")
struct RegistrationWriterTests {
    struct Broken: Error {}

    @Sendable static func createScratch(in db: any StoreTransaction) throws {
        if let sqlite = try? db.sqlite() {
            try sqlite.execute(sql: "CREATE TABLE scratch (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        } else {
            try db.postgres().execute("CREATE TABLE scratch (id bigserial PRIMARY KEY, name text NOT NULL)")
        }
    }

    @Sendable static func insert(_ name: String, in db: any StoreTransaction) throws {
        if let sqlite = try? db.sqlite() {
            try sqlite.execute(sql: "INSERT INTO scratch (name) VALUES (?)", arguments: [name])
        } else {
            try db.postgres().execute("INSERT INTO scratch (name) VALUES (\(name))")
        }
    }

    @Sendable static func names(in db: any StoreTransaction) throws -> [String] {
        if let sqlite = try? db.sqlite() { return try String.fetchAll(sqlite, sql: "SELECT name FROM scratch ORDER BY id") }
        return try db.postgres().query("SELECT name FROM scratch ORDER BY id").map { try $0.decode(String.self) }
    }

    @Test(arguments: [RegistrationBackend.sqlite])
    func aBatchCommitsOnceAndAFailureRollsBackOnlyItself(_ backend: RegistrationBackend) async throws {
        try await RegistrationHarness.with(backend) { harness in
            try await harness.transactions.write { db throws in try Self.createScratch(in: db) }
            let writer = harness.service.environment.writer
            let before = writer.batchesCommitted
            let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
            // The first unit holds the writer's transaction open until three more are queued.
            let first = Task {
                try await writer.submit { db, _, _ -> Result<Void, RegistrationError> in
                    try Self.insert("first", in: db)
                    started.signal()
                    release.wait()
                    return .success(())
                }
            }
            await started.waitOffThePool()
            let ok = Task { try await writer.submit { db, _, _ -> Result<Int, RegistrationError> in try Self.insert("ok", in: db); return .success(7) } }
            let thrown = Task { try await writer.submit { db, _, _ -> Result<Int, RegistrationError> in try Self.insert("thrown", in: db); throw Broken() } }
            let refused = Task {
                try await writer.submit { db, _, _ -> Result<Int, RegistrationError> in try Self.insert("refused", in: db); return .failure(.violation(.classFull)) }
            }
            for _ in 0..<1000 where writer.waiting < 3 { try await Task.sleep(for: .milliseconds(5)) }
            #expect(writer.waiting == 3)
            release.signal()

            try await first.value
            #expect(try await ok.value == 7)
            await #expect(throws: Broken.self) { try await thrown.value }
            await #expect(throws: RegistrationError.violation(.classFull)) { try await refused.value }
            #expect(writer.batchesCommitted - before == 2, "the three queued units shared one transaction")
            let names = try await harness.transactions.read { db throws in try Self.names(in: db) }
            // The three queued in whatever order their tasks ran: what counts is what was kept.
            #expect(names.sorted() == ["first", "ok", "refused"], "the thrown unit was rolled back alone; a refusal keeps what it wrote first")
        }
    }

    /// PostgreSQL: no writer, no lane. While one unit holds its transaction open, others (of
    /// other rows) run, commit and answer; a thrown unit is rolled back alone and a refusal
    /// keeps what it wrote first, as in group commit.
    @Test func onPostgreSQLUnitsRunAtOnceAndAFailureRollsBackOnlyItself() async throws {
        try await RegistrationHarness.with(.postgres) { harness in
            try await harness.transactions.write { db throws in try Self.createScratch(in: db) }
            let writer = harness.service.environment.writer
            let before = writer.batchesCommitted
            let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
            let first = Task {
                try await writer.submit(locking: RowLocks(classes: [1], students: [])) { db, _, _ -> Result<Void, RegistrationError> in
                    try Self.insert("first", in: db)
                    started.signal()
                    release.wait()
                    return .success(())
                }
            }
            await started.waitOffThePool()
            // None of these waits for the open unit.
            #expect(try await writer.submit(locking: RowLocks(classes: [2], students: [])) { db, _, _ -> Result<Int, RegistrationError> in
                try Self.insert("ok", in: db)
                return .success(7)
            } == 7)
            await #expect(throws: Broken.self) {
                try await writer.submit { db, _, _ -> Result<Int, RegistrationError> in try Self.insert("thrown", in: db); throw Broken() }
            }
            await #expect(throws: RegistrationError.violation(.classFull)) {
                try await writer.submit { db, _, _ -> Result<Int, RegistrationError> in try Self.insert("refused", in: db); return .failure(.violation(.classFull)) }
            }
            #expect(try await harness.transactions.read { db throws in try Self.names(in: db) }.sorted() == ["ok", "refused"], "committed before the first")
            release.signal()
            try await first.value
            #expect(writer.batchesCommitted - before == 3, "a transaction per unit; the thrown one committed nothing")
            let names = try await harness.transactions.read { db throws in try Self.names(in: db) }
            #expect(names.sorted() == ["first", "ok", "refused"])
        }
    }

    /// PostgreSQL: a registration and a drop of a class with no line are one statement each
    /// after one read (no unit of the writer runs), the counter moves with the rows, and the
    /// class's close and open events go through the outbox to one job each.
    @Test func onPostgreSQLARegistrationIsOneTripAndItsEventsAreQueuedOnce() async throws {
        try await RegistrationHarness.with(.postgres) { harness in
            try await harness.importCatalog(RegistrationStoreConformance.catalog(seats: 1))
            let classID = RegistrationStoreConformance.classID
            let (a, b) = (try await harness.student("820000001"), try await harness.student("820000002"))
            let writer = harness.service.environment.writer
            let before = writer.batchesCommitted
            func count(_ sql: String) async throws -> Int {
                try await harness.transactions.read { db throws in try db.postgres().query(PostgresQuery(unsafeSQL: sql)).first!.decode(Int.self) }
            }
            try await harness.service.enrollment.register(studentID: a, classID: classID)
            await #expect(throws: RegistrationError.violation(.classFull)) { try await harness.service.enrollment.register(studentID: b, classID: classID) }
            await #expect(throws: RegistrationError.violation(.alreadyEnrolled)) { try await harness.service.enrollment.register(studentID: a, classID: classID) }
            #expect(try await count("SELECT count(*)::int FROM jobs WHERE kind = 'push.class-closed'") == 1, "the class closed once")
            try await harness.service.enrollment.drop(studentID: a, classID: classID)
            await #expect(throws: RegistrationError.violation(.notEnrolled)) { try await harness.service.enrollment.drop(studentID: a, classID: classID) }
            #expect(try await count("SELECT count(*)::int FROM jobs WHERE kind = 'push.class-opened'") == 1, "and opened once")
            #expect(try await count("SELECT count(*)::int FROM registration_seat_events") == 0, "the outbox is empty")
            #expect(writer.batchesCommitted == before, "no unit of the writer ran: every change was one trip")
            #expect(try await RegistrationStoreConformance.seats(harness.opened).enrolled == 0)
            #expect(try await harness.catalog.classListing(id: classID)?.seats.enrolled == 0, "the cache heard the count")
        }
    }

    /// The harness is the whole module: a student added through Auth's directory registers in
    /// a class of the imported catalog, and the class's counter moves with the enrollment.
    @Test(arguments: RegistrationBackend.all)
    func theHarnessRunsTheModuleWithoutHTTP(_ backend: RegistrationBackend) async throws {
        try await RegistrationHarness.with(backend) { harness in
            try await harness.importCatalog(RegistrationStoreConformance.catalog(seats: 1))
            let (a, b) = (try await harness.student("820000001"), try await harness.student("820000002"))
            try await harness.service.enrollment.register(studentID: a, classID: RegistrationStoreConformance.classID)
            await #expect(throws: RegistrationError.violation(.classFull)) {
                try await harness.service.enrollment.register(studentID: b, classID: RegistrationStoreConformance.classID)
            }
            #expect(try await RegistrationStoreConformance.seats(harness.opened).enrolled == 1)
            #expect(try await harness.catalog.classListing(id: RegistrationStoreConformance.classID)?.seats.enrolled == 1, "the cache heard the batch")
        }
    }

    /// What the writer hands the use cases' finisher, and when: every class id the units of a
    /// transaction touched, inside that transaction (what it writes commits with the units),
    /// and its summary after the commit, once per transaction. The writer adds nothing of its
    /// own: a finisher that records is all it runs.
    final class RecordingFinisher: UnitsFinishing, @unchecked Sendable {
        let lock = NSLock()
        var finished: [Set<Int64>] = []
        var committed: [Int] = []

        func beforeUnits() -> Int { 41 }

        func finish(touched: Set<Int64>, context: Int, now: Date, in db: any StoreTransaction) throws -> Int {
            try RegistrationWriterTests.insert("finished \(touched.sorted())", in: db)
            lock.withLock { finished.append(touched) }
            return context + 1
        }

        func committed(_ summary: Int) { lock.withLock { committed.append(summary) } }
    }

    @Test(arguments: [RegistrationBackend.sqlite, .postgres])
    func theWriterHandsWhatUnitsTouchedToTheUseCasesFinisher(_ backend: RegistrationBackend) async throws {
        try await RegistrationHarness.with(backend) { harness in
            try await harness.transactions.write { db throws in try Self.createScratch(in: db) }
            let finisher = RecordingFinisher()
            let writer = RegistrationWriter(transactions: harness.transactions, stores: harness.stores, finisher: finisher, clock: harness.clock)
            let answer = try await writer.submit { db, _, touched -> Result<Int, RegistrationError> in
                try Self.insert("unit", in: db)
                touched.formUnion([7030, 7031])
                return .success(5)
            }
            #expect(answer == 5)
            #expect(finisher.finished == [[7030, 7031]])
            #expect(finisher.committed == [42], "the summary of the transaction, after its commit")
            let names = try await harness.transactions.read { db throws in try Self.names(in: db) }
            #expect(names == ["unit", "finished [7030, 7031]"], "what the finisher wrote committed with the unit")

            // A unit that throws is rolled back alone. In group commit (SQLite) its batch still
            // commits, finisher and all; in a transaction of its own (PostgreSQL) nothing commits,
            // so nothing is handed over.
            await #expect(throws: Broken.self) {
                _ = try await writer.submit { db, _, touched -> Result<Int, RegistrationError> in
                    touched.insert(9)
                    try Self.insert("broken", in: db)
                    throw Broken()
                }
            }
            let after = try await harness.transactions.read { db throws in try Self.names(in: db) }
            #expect(!after.contains("broken"))
            #expect(finisher.committed.count == (backend.description == "SQLite" ? 2 : 1))
        }
    }
}

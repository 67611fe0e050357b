import Contracts
import Foundation
import GatewayApp
import GRDB
@testable import Registration
import Storage
import Testing
import TestSupport

/// Group commit: callers queued behind a running transaction share the next one, each in its
/// own savepoint.
@Suite("Registration group commit")
struct RegistrationWriterTests {
    struct Broken: Error {}

    @Sendable static func insert(_ name: String, in db: any StoreTransaction) throws {
        try db.sqlite().execute(sql: "INSERT INTO scratch (name) VALUES (?)", arguments: [name])
    }

    @Test func aBatchCommitsOnceAndAFailureRollsBackOnlyItself() async throws {
        let gateway = try await TestGateway.registration()
        defer { gateway.cleanUp() }
        try await gateway.app.database.pool.write { db in try db.execute(sql: "CREATE TABLE scratch (name TEXT NOT NULL)") }
        let writer = gateway.registration.environment.writer
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
        let names = try await gateway.app.database.pool.read { db in try String.fetchAll(db, sql: "SELECT name FROM scratch ORDER BY rowid") }
        #expect(names == ["first", "ok", "refused"], "the thrown unit was rolled back alone; a refusal keeps what it wrote first")
    }
}

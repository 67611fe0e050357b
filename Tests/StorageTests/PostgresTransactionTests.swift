import Contracts
import Logging
import PostgresNIO
import Storage
import Synchronization
import TestSupport
import Testing
import PostgresStorage

/// What the PostgreSQL runner promises every store: a unit commits whole or not at all, a
/// savepoint undoes only itself, and concurrent read-then-write units behave as if run one after
/// another (SERIALIZABLE, run again on conflict), as SQLite's single writer guarantees.
@Suite("PostgreSQL transactions")
struct PostgresTransactionTests {
    enum CounterSchema: PostgresSchemaModule {
        static let tables = ["counters"]
        static let postgresMigrations = [
            PostgresMigration("test.001.counters", ["CREATE TABLE counters (name text PRIMARY KEY, value bigint NOT NULL)", "INSERT INTO counters VALUES ('c', 0)"]),
        ]
    }

    static func value(_ database: GatewayPostgres) async throws -> Int64 {
        try await database.read { tx in try tx.postgres().query("SELECT value FROM counters WHERE name = 'c'").first!.decode(Int64.self) }
    }

    @Test func aUnitCommitsWholeOrNotAtAllAndASavepointUndoesOnlyItself() async throws {
        let database = try await TestPostgres.database("transactions", modules: [CounterSchema.self])
        struct Abandoned: Error {}
        await #expect(throws: Abandoned.self) {
            try await database.write { tx in
                try tx.postgres().execute("UPDATE counters SET value = 100")
                throw Abandoned()
            }
        }
        #expect(try await Self.value(database) == 0)
        try await database.write { tx in
            try tx.postgres().execute("UPDATE counters SET value = value + 1")
            #expect(throws: Abandoned.self) {
                try database.savepoint(in: tx) {
                    try tx.postgres().execute("UPDATE counters SET value = value + 10")
                    throw Abandoned()
                }
            }
            try database.savepoint(in: tx) { try tx.postgres().execute("UPDATE counters SET value = value + 5") }
        }
        #expect(try await Self.value(database) == 6)
        await database.shutdown()
    }

    @Test func concurrentReadThenWriteUnitsLoseNoUpdate() async throws {
        let database = try await TestPostgres.database("serializable", modules: [CounterSchema.self])
        let units = 40
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<units {
                group.addTask {
                    try await database.write { tx in
                        // Read, then write what was read plus one: the lost-update pattern.
                        let transaction = try tx.postgres()
                        let value = try transaction.query("SELECT value FROM counters WHERE name = 'c'").first!.decode(Int64.self)
                        try transaction.execute("UPDATE counters SET value = \(value + 1) WHERE name = 'c'")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await Self.value(database) == Int64(units))
        await database.shutdown()
    }

    /// Units of one lane from two instances take turns: each runs once, none is aborted for a
    /// conflict and run again (the same read-then-write units outside a lane conflict and retry).
    @Test func unitsOfOneLaneTakeTurnsAcrossInstancesAndNeverRunTwice() async throws {
        let first = try await TestPostgres.database("lane", modules: [CounterSchema.self])
        let second = GatewayPostgres(settings: first.settings, connections: 4, logger: .init(label: "second"))
        second.start()
        final class Runs: Sendable { let count = Atomic<Int>(0) }
        let runs = Runs()
        let units = 40
        try await withThrowingTaskGroup(of: Void.self) { group in
            for unit in 0..<units {
                let database = unit.isMultiple(of: 2) ? first : second
                group.addTask {
                    try await database.write(inTurn: AdvisoryLocks.registrationWriter) { tx in
                        runs.count.add(1, ordering: .relaxed)
                        let transaction = try tx.postgres()
                        let value = try transaction.query("SELECT value FROM counters WHERE name = 'c'").first!.decode(Int64.self)
                        try transaction.execute("UPDATE counters SET value = \(value + 1) WHERE name = 'c'")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await Self.value(first) == Int64(units))
        #expect(runs.count.load(ordering: .relaxed) == units, "no unit ran twice")
        // The lane's lock is released after every unit: an ordinary session takes it at once.
        let free = try await first.transaction(.read) { tx in
            try tx.query("SELECT pg_try_advisory_lock(\(AdvisoryLocks.registrationWriter))").first!.decode(Bool.self)
        }
        #expect(free)
        await second.shutdown()
        await first.shutdown()
    }

    @Test func migrationsRunOnceEvenWhenInstancesStartTogether() async throws {
        let first = try await TestPostgres.database("migrations", modules: [])
        let second = GatewayPostgres(settings: first.settings, connections: 2, logger: .init(label: "second"))
        second.start()
        async let a = first.migrate([CounterSchema.self])
        async let b = second.migrate([CounterSchema.self])
        let applied = try await [a, b]
        #expect(applied.flatMap { $0 } == ["test.001.counters"], "one instance applies it, the other finds it applied")
        #expect(try await first.pendingMigrations([CounterSchema.self]).isEmpty)
        #expect(try await Self.value(first) == 0, "its insert ran once")
        await second.shutdown()
        await first.shutdown()
    }
}

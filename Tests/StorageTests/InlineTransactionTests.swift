import Contracts
import Foundation
import GRDB
@testable import Storage
import Telemetry
import Synchronization
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
@testable import SQLiteStorage
#endif

/// The request-path shortcuts of ``TransactionRunner``: a write that runs on the caller's thread
/// only while no other write is in flight, a read on a connection of its own when one is free,
/// and the group-commit savepoint.
@Suite("Inline transactions")
struct InlineTransactionTests {
    static func database() throws -> GatewayDatabase {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("inline-\(UUID().uuidString)/db.sqlite").path
        let db = try GatewayDatabase(path: path, modules: [StorageSchema.self])
        try db.migrate()
        try db.pool.write { db in try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)") }
        return db
    }

    static func thread() -> UInt { UInt(pthread_self()) }

    @Test func aWriteWithTheWriterFreeRunsOnTheCallersThread() async throws {
        let db = try Self.database()
        // Tracing is process-wide, and a tracing suite running beside this one sends every
        // transaction the traced way (on the pool's threads): the thread is compared only when
        // tracing was off around the call.
        let caller = Self.thread(), untracedWrite = !GatewayTracing.isEnabled
        let ran = try await db.writePreferringInline { tx in
            try tx.sqlite().execute(sql: "INSERT INTO notes (text) VALUES ('inline')")
            return Self.thread()
        }
        if untracedWrite, !GatewayTracing.isEnabled { #expect(ran == caller) }
        #expect(try await db.pool.read { try String.fetchOne($0, sql: "SELECT text FROM notes") } == "inline")
        let reader = Self.thread(), untracedRead = !GatewayTracing.isEnabled
        let read = try await db.readPreferringInline { tx in (try String.fetchOne(tx.sqlite(), sql: "SELECT text FROM notes"), Self.thread()) }
        #expect(read.0 == "inline")
        if untracedRead, !GatewayTracing.isEnabled { #expect(read.1 == reader) }
    }

    /// Inline reads have connections of their own and never wait for one: with every one of
    /// them held, a read goes the usual way (on a pool reader's queue) and still answers.
    @Test func inlineReadsNeverWaitForAConnection() async throws {
        let db = try Self.database()
        try await db.write { tx in try tx.sqlite().execute(sql: "INSERT INTO notes (text) VALUES ('seen')") }
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holders = max(2, ProcessInfo.processInfo.activeProcessorCount)
        // Hold every inline connection from threads outside Swift's pool.
        for _ in 0..<holders {
            Thread.detachNewThread {
                _ = try? db.inlineReaders.read { _ in
                    held.signal()
                    release.wait()
                }
            }
        }
        for _ in 0..<holders { await held.waitOffThePool() }
        let caller = Self.thread()
        let read = try await db.readPreferringInline { tx in (try String.fetchOne(tx.sqlite(), sql: "SELECT text FROM notes"), Self.thread()) }
        #expect(read.0 == "seen")
        #expect(read.1 != caller, "with no inline connection free it read on a pool reader's queue")
        for _ in 0..<holders { release.signal() }
    }

    @Test func behindAnotherWriteItWaitsSuspendedAndThenCommits() async throws {
        let db = try Self.database()
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        // Another write holds the writer until released.
        let long = Task {
            try await db.write { tx in
                started.signal()
                release.wait()
                try tx.sqlite().execute(sql: "INSERT INTO notes (text) VALUES ('long')")
            }
        }
        await started.waitOffThePool()
        let inline = Task { () -> (caller: UInt, ran: UInt) in
            let caller = Self.thread()
            let ran = try await db.writePreferringInline { tx in
                try tx.sqlite().execute(sql: "INSERT INTO notes (text) VALUES ('after')")
                return Self.thread()
            }
            return (caller, ran)
        }
        // Queued behind the long write, not run beside it.
        let deadline = ContinuousClock.now + .seconds(30)
        while db.writesQueuedOrRunning < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        #expect(db.writesQueuedOrRunning == 2)
        #expect(try await db.pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM notes") } == 0)
        release.signal()
        try await long.value
        let threads = try await inline.value
        // It queued like an async write (run on the writer's queue), not inline on its caller.
        #expect(threads.caller != threads.ran)
        #expect(try await db.pool.read { try String.fetchAll($0, sql: "SELECT text FROM notes ORDER BY id") } == ["long", "after"])
    }

    @Test func aFailingUnitRollsBackAloneAndTheTransactionGoesOn() async throws {
        let db = try Self.database()
        struct Refused: Error {}
        try await db.write { tx in
            try db.savepoint(in: tx) { try tx.sqlite().execute(sql: "INSERT INTO notes (text) VALUES ('kept')") }
            #expect(throws: Refused.self) {
                try db.savepoint(in: tx) {
                    try tx.sqlite().execute(sql: "INSERT INTO notes (text) VALUES ('undone')")
                    throw Refused()
                }
            }
            try db.savepoint(in: tx) { try tx.sqlite().execute(sql: "INSERT INTO notes (text) VALUES ('also kept')") }
        }
        #expect(try await db.pool.read { try String.fetchAll($0, sql: "SELECT text FROM notes ORDER BY id") } == ["kept", "also kept"])
        await #expect(throws: SavepointOutsideTransaction.self) {
            try await db.pool.writeWithoutTransaction { conn in try db.savepoint(in: conn) {} }
        }
    }
}

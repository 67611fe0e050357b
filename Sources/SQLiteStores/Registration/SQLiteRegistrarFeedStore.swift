import Catalog
import Contracts
import Foundation
import GRDB
import Registration
import Storage
import SQLiteStorage

/// ``RegistrarFeedStoring`` on SQLite: `registration_registrar_sections`,
/// `registration_seat_history`, `registration_registrar_deliveries` and
/// `registration_registrar_polls`.
struct SQLiteRegistrarFeedStore: RegistrarFeedStoring {
    init() {}

    func lastApplied(of classIDs: [Int64], in transaction: any StoreTransaction) throws -> [Int64: Int64] {
        guard !classIDs.isEmpty else { return [:] }
        let db = try transaction.sqlite()
        var result: [Int64: Int64] = [:]
        for start in stride(from: 0, to: classIDs.count, by: 500) {
            let chunk = Array(classIDs[start..<min(start + 500, classIDs.count)])
            let rows = try Row.fetchCursor(
                db, sql: "SELECT class_id, as_of_ms FROM registration_registrar_sections WHERE class_id IN (\(databaseQuestionMarks(count: chunk.count)))",
                arguments: StatementArguments(chunk)
            )
            while let row = try rows.next() { result[row[0]] = row[1] }
        }
        return result
    }

    func recordApplied(_ entries: [(classID: Int64, update: RegistrarSeatUpdate)], via: String, at now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        let last = try db.cachedStatement(sql: """
            INSERT INTO registration_registrar_sections (class_id, as_of_ms, updated_at) VALUES (?, ?, ?)
            ON CONFLICT (class_id) DO UPDATE SET as_of_ms = excluded.as_of_ms, updated_at = excluded.updated_at
            """)
        let history = try db.cachedStatement(sql: """
            INSERT INTO registration_seat_history (class_id, received_ms, as_of_ms, seats, enrolled, waitlisted, status, via)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let received = now.feedMilliseconds
        for (classID, update) in entries {
            let asOf = update.asOf.feedMilliseconds
            try last.execute(arguments: [classID, asOf, now])
            try history.execute(arguments: [
                classID, received, asOf, update.seats, update.enrolled, update.waitlisted, update.status.rawValue, via,
            ])
        }
    }

    func claimDelivery(id: String, at now: Date, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.cachedStatement(sql: "INSERT INTO registration_registrar_deliveries (webhook_id, received_ms) VALUES (?, ?) ON CONFLICT DO NOTHING")
            .execute(arguments: [id, now.feedMilliseconds])
        return db.changesCount == 1
    }

    func history(classID: Int64, limit: Int, in transaction: any StoreTransaction) throws -> [SeatHistoryEntry] {
        let db = try transaction.sqlite()
        return try Row.fetchAll(
            db.cachedStatement(sql: """
                SELECT received_ms, as_of_ms, seats, enrolled, waitlisted, status, via FROM registration_seat_history
                WHERE class_id = ? ORDER BY received_ms DESC, id DESC LIMIT ?
                """),
            arguments: [classID, limit]
        ).map { row in
            SeatHistoryEntry(
                receivedAt: Date(feedMilliseconds: row[0]), asOf: Date(feedMilliseconds: row[1]), seats: row[2], enrolled: row[3],
                waitlisted: row[4], status: SectionStatus(rawValue: row[5]) ?? .closed, via: row[6]
            )
        }
    }

    func prune(before: Date, in transaction: any StoreTransaction) throws -> Int {
        let db = try transaction.sqlite()
        let cutoff = before.feedMilliseconds
        try db.cachedStatement(sql: "DELETE FROM registration_seat_history WHERE received_ms < ?").execute(arguments: [cutoff])
        var removed = db.changesCount
        try db.cachedStatement(sql: "DELETE FROM registration_registrar_deliveries WHERE received_ms < ?").execute(arguments: [cutoff])
        removed += db.changesCount
        return removed
    }

    func lastPoll(term: String, in transaction: any StoreTransaction) throws -> RegistrarPollRecord? {
        let db = try transaction.sqlite()
        return try Row.fetchOne(
            db.cachedStatement(sql: "SELECT polled_ms, outcome FROM registration_registrar_polls WHERE term = ?"), arguments: [term]
        ).map { RegistrarPollRecord(term: term, polledAt: Date(feedMilliseconds: $0[0]), outcome: $0[1]) }
    }

    func recordPoll(_ record: RegistrarPollRecord, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.cachedStatement(sql: """
            INSERT INTO registration_registrar_polls (term, polled_ms, outcome) VALUES (?, ?, ?)
            ON CONFLICT (term) DO UPDATE SET polled_ms = excluded.polled_ms, outcome = excluded.outcome
            """).execute(arguments: [record.term, record.polledAt.feedMilliseconds, record.outcome])
    }
}

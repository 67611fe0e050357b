import Catalog
import Contracts
import Foundation
import PostgresNIO
import Registration
import Storage
import PostgresStorage

/// ``RegistrarFeedStoring`` on PostgreSQL, kept as on SQLite.
struct PostgresRegistrarFeedStore: RegistrarFeedStoring {
    init() {}

    func lastApplied(of classIDs: [Int64], in transaction: any StoreTransaction) throws -> [Int64: Int64] {
        guard !classIDs.isEmpty else { return [:] }
        var result: [Int64: Int64] = [:]
        for row in try transaction.postgres().query(
            "SELECT class_id, as_of_ms FROM registration_registrar_sections WHERE class_id = ANY(\(classIDs))"
        ) {
            let (id, asOf) = try row.decode((Int64, Int64).self)
            result[id] = asOf
        }
        return result
    }

    /// Two statements for all of them: the entries travel as arrays.
    func recordApplied(_ entries: [(classID: Int64, update: RegistrarSeatUpdate)], via: String, at now: Date, in transaction: any StoreTransaction) throws {
        guard !entries.isEmpty else { return }
        let transaction = try transaction.postgres()
        let ids = entries.map(\.classID)
        let asOf = entries.map { $0.update.asOf.feedMilliseconds }
        let seats = entries.map { $0.update.seats }
        let enrolled = entries.map { $0.update.enrolled }
        let waitlisted = entries.map { $0.update.waitlisted ?? -1 }
        let status = entries.map { $0.update.status.rawValue }
        try transaction.execute("""
            INSERT INTO registration_registrar_sections (class_id, as_of_ms, updated_at)
            SELECT id, as_of, \(now) FROM UNNEST(\(ids)::bigint[], \(asOf)::bigint[]) AS given(id, as_of)
            ON CONFLICT (class_id) DO UPDATE SET as_of_ms = excluded.as_of_ms, updated_at = excluded.updated_at
            """)
        try transaction.execute("""
            INSERT INTO registration_seat_history (class_id, received_ms, as_of_ms, seats, enrolled, waitlisted, status, via)
            SELECT id, \(now.feedMilliseconds), as_of, seats, enrolled, NULLIF(waitlisted, -1), status, \(via)
            FROM UNNEST(\(ids)::bigint[], \(asOf)::bigint[], \(seats)::integer[], \(enrolled)::integer[], \(waitlisted)::integer[], \(status)::integer[])
                AS given(id, as_of, seats, enrolled, waitlisted, status)
            """)
    }

    func claimDelivery(id: String, at now: Date, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().execute("""
            INSERT INTO registration_registrar_deliveries (webhook_id, received_ms) VALUES (\(id), \(now.feedMilliseconds)) ON CONFLICT DO NOTHING
            """) == 1
    }

    func history(classID: Int64, limit: Int, in transaction: any StoreTransaction) throws -> [SeatHistoryEntry] {
        try transaction.postgres().query("""
            SELECT received_ms, as_of_ms, seats, enrolled, waitlisted, status, via FROM registration_seat_history
            WHERE class_id = \(classID) ORDER BY received_ms DESC, id DESC LIMIT \(limit)
            """).map { row in
            let (received, asOf, seats, enrolled, waitlisted, status, via) = try row.decode((Int64, Int64, Int, Int, Int?, Int, String).self)
            return SeatHistoryEntry(
                receivedAt: Date(feedMilliseconds: received), asOf: Date(feedMilliseconds: asOf), seats: seats, enrolled: enrolled,
                waitlisted: waitlisted, status: SectionStatus(rawValue: status) ?? .closed, via: via
            )
        }
    }

    func prune(before: Date, in transaction: any StoreTransaction) throws -> Int {
        let transaction = try transaction.postgres()
        let cutoff = before.feedMilliseconds
        return try transaction.execute("DELETE FROM registration_seat_history WHERE received_ms < \(cutoff)")
            + transaction.execute("DELETE FROM registration_registrar_deliveries WHERE received_ms < \(cutoff)")
    }

    func lastPoll(term: String, in transaction: any StoreTransaction) throws -> RegistrarPollRecord? {
        try transaction.postgres().query("SELECT polled_ms, outcome FROM registration_registrar_polls WHERE term = \(term)").first.map { row in
            let (polled, outcome) = try row.decode((Int64, String).self)
            return RegistrarPollRecord(term: term, polledAt: Date(feedMilliseconds: polled), outcome: outcome)
        }
    }

    func recordPoll(_ record: RegistrarPollRecord, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("""
            INSERT INTO registration_registrar_polls (term, polled_ms, outcome) VALUES (\(record.term), \(record.polledAt.feedMilliseconds), \(record.outcome))
            ON CONFLICT (term) DO UPDATE SET polled_ms = excluded.polled_ms, outcome = excluded.outcome
            """)
    }
}

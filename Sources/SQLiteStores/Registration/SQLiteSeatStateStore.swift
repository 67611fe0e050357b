import Contracts
import Foundation
import GRDB
import Registration
import Storage
import SQLiteStorage

/// ``SeatStateStoring`` on SQLite: `registration_seat_states`.
struct SQLiteSeatStateStore: SeatStateStoring {
    init() {}

    func openStates(of ids: some Collection<Int64>, in transaction: any StoreTransaction) throws -> [Int64: Bool] {
        let ids = Array(ids)
        guard !ids.isEmpty else { return [:] }
        let db = try transaction.sqlite()
        var states: [Int64: Bool] = [:]
        if ids.count == 1 {
            let open = try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT open FROM registration_seat_states WHERE class_id = ?"), arguments: [ids[0]]
            )
            if let open { states[ids[0]] = open }
            return states
        }
        let rows = try Row.fetchCursor(
            db, sql: "SELECT class_id, open FROM registration_seat_states WHERE class_id IN (\(databaseQuestionMarks(count: ids.count)))",
            arguments: StatementArguments(ids)
        )
        while let row = try rows.next() { states[row["class_id"]] = row["open"] }
        return states
    }

    func record(_ states: [(classID: Int64, open: Bool)], at now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        let statement = try db.cachedStatement(sql: """
            INSERT INTO registration_seat_states (class_id, open, changed_at) VALUES (?, ?, ?)
            ON CONFLICT (class_id) DO UPDATE SET open = excluded.open, changed_at = excluded.changed_at
            """)
        for (classID, open) in states { try statement.execute(arguments: [classID, open, now]) }
    }
}

import Contracts
import Foundation
import GRDB
import Scheduling
import Storage
import SQLiteStorage

struct SQLiteSavedScheduleStore: SavedScheduleStoring {
    init() {}

    func insert(accountID: Int64, name: String, term: String, classIDs: [Int64], at now: Date, in transaction: any StoreTransaction) throws -> SavedSchedule {
        let db = try transaction.sqlite()
        try db.execute(
            sql: "INSERT INTO scheduling_saved_schedules (account_id, name, term, class_ids, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [accountID, name, term, Self.encode(classIDs), now, now]
        )
        return SavedSchedule(id: db.lastInsertedRowID, accountID: accountID, name: name, term: term, classIDs: classIDs, createdAt: now, updatedAt: now)
    }

    func schedules(of accountID: Int64, in transaction: any StoreTransaction) throws -> [SavedSchedule] {
        let db = try transaction.sqlite()
        return try Row.fetchAll(db, sql: "SELECT * FROM scheduling_saved_schedules WHERE account_id = ? ORDER BY id", arguments: [accountID]).map(Self.schedule)
    }

    func count(of accountID: Int64, in transaction: any StoreTransaction) throws -> Int {
        let db = try transaction.sqlite()
        return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM scheduling_saved_schedules WHERE account_id = ?", arguments: [accountID]) ?? 0
    }

    func schedule(id: Int64, of accountID: Int64, in transaction: any StoreTransaction) throws -> SavedSchedule? {
        let db = try transaction.sqlite()
        return try Row.fetchOne(
            db, sql: "SELECT * FROM scheduling_saved_schedules WHERE id = ? AND account_id = ?", arguments: [id, accountID]
        ).map(Self.schedule)
    }

    func update(id: Int64, of accountID: Int64, name: String?, classIDs: [Int64]?, at now: Date, in transaction: any StoreTransaction) throws -> SavedSchedule? {
        let db = try transaction.sqlite()
        try db.execute(
            sql: """
                UPDATE scheduling_saved_schedules SET name = COALESCE(?, name), class_ids = COALESCE(?, class_ids), updated_at = ?
                WHERE id = ? AND account_id = ?
                """,
            arguments: [name, classIDs.map(Self.encode), now, id, accountID]
        )
        guard db.changesCount > 0 else { return nil }
        return try schedule(id: id, of: accountID, in: transaction)
    }

    func delete(id: Int64, of accountID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.execute(sql: "DELETE FROM scheduling_saved_schedules WHERE id = ? AND account_id = ?", arguments: [id, accountID])
        return db.changesCount > 0
    }

    func setVisibility(_ visibility: ScheduleVisibility, id: Int64, of accountID: Int64, at now: Date, in transaction: any StoreTransaction) throws -> SavedSchedule? {
        let db = try transaction.sqlite()
        try db.execute(
            sql: "UPDATE scheduling_saved_schedules SET visibility = ?, updated_at = ? WHERE id = ? AND account_id = ?",
            arguments: [visibility.rawValue, now, id, accountID]
        )
        guard db.changesCount > 0 else { return nil }
        return try schedule(id: id, of: accountID, in: transaction)
    }

    func friendsVisibleSchedules(of ownerIDs: [Int64], term: String?, in transaction: any StoreTransaction) throws -> [SavedSchedule] {
        guard !ownerIDs.isEmpty else { return [] }
        let db = try transaction.sqlite()
        var found: [SavedSchedule] = []
        for start in stride(from: 0, to: ownerIDs.count, by: 500) {
            let chunk = Array(ownerIDs[start..<min(start + 500, ownerIDs.count)])
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            var arguments = StatementArguments(chunk)
            var termClause = ""
            if let term {
                termClause = " AND term = ?"
                arguments += [term]
            }
            found += try Row.fetchAll(
                db,
                sql: "SELECT * FROM scheduling_saved_schedules WHERE visibility = 'friends' AND account_id IN (\(marks))\(termClause) ORDER BY account_id, id",
                arguments: arguments
            ).map(Self.schedule)
        }
        return found
    }

    private static func encode(_ ids: [Int64]) -> String { ids.map(String.init).joined(separator: ",") }

    private static func schedule(_ row: Row) -> SavedSchedule {
        let ids: String = row["class_ids"]
        return SavedSchedule(
            id: row["id"], accountID: row["account_id"], name: row["name"], term: row["term"],
            classIDs: ids.split(separator: ",").compactMap { Int64($0) },
            createdAt: row["created_at"], updatedAt: row["updated_at"],
            visibility: ScheduleVisibility(rawValue: row["visibility"] ?? "") ?? .private
        )
    }
}

import Contracts
import Foundation
import PostgresNIO
import Scheduling
import Storage
import PostgresStorage

/// ``SavedScheduleStoring`` on PostgreSQL; every read and write is scoped to the owner.
struct PostgresSavedScheduleStore: SavedScheduleStoring {
    init() {}

    static let columns = "id, account_id, name, term, class_ids, created_at, updated_at, visibility"

    static func schedule(_ row: PostgresRow) throws -> SavedSchedule {
        let (id, accountID, name, term, classIDs, createdAt, updatedAt, visibility) = try row.decode(
            (Int64, Int64, String, String, [Int64], Date, Date, String).self
        )
        return SavedSchedule(
            id: id, accountID: accountID, name: name, term: term, classIDs: classIDs, createdAt: createdAt, updatedAt: updatedAt,
            visibility: ScheduleVisibility(rawValue: visibility) ?? .private
        )
    }

    func insert(accountID: Int64, name: String, term: String, classIDs: [Int64], at now: Date, in transaction: any StoreTransaction) throws -> SavedSchedule {
        try Self.schedule(transaction.postgres().query("""
            INSERT INTO scheduling_saved_schedules (account_id, name, term, class_ids, created_at, updated_at)
            VALUES (\(accountID), \(name), \(term), \(classIDs), \(now), \(now))
            RETURNING \(unescaped: Self.columns)
            """).first!)
    }

    func schedules(of accountID: Int64, in transaction: any StoreTransaction) throws -> [SavedSchedule] {
        try transaction.postgres().query(
            "SELECT \(unescaped: Self.columns) FROM scheduling_saved_schedules WHERE account_id = \(accountID) ORDER BY id"
        ).map(Self.schedule)
    }

    func count(of accountID: Int64, in transaction: any StoreTransaction) throws -> Int {
        try transaction.postgres().query("SELECT COUNT(*) FROM scheduling_saved_schedules WHERE account_id = \(accountID)").first?.decode(Int.self) ?? 0
    }

    func schedule(id: Int64, of accountID: Int64, in transaction: any StoreTransaction) throws -> SavedSchedule? {
        try transaction.postgres().query(
            "SELECT \(unescaped: Self.columns) FROM scheduling_saved_schedules WHERE id = \(id) AND account_id = \(accountID)"
        ).first.map(Self.schedule)
    }

    func update(id: Int64, of accountID: Int64, name: String?, classIDs: [Int64]?, at now: Date, in transaction: any StoreTransaction) throws -> SavedSchedule? {
        try transaction.postgres().query("""
            UPDATE scheduling_saved_schedules SET name = COALESCE(\(name), name), class_ids = COALESCE(\(classIDs)::bigint[], class_ids),
                updated_at = \(now)
            WHERE id = \(id) AND account_id = \(accountID)
            RETURNING \(unescaped: Self.columns)
            """).first.map(Self.schedule)
    }

    func setVisibility(_ visibility: ScheduleVisibility, id: Int64, of accountID: Int64, at now: Date, in transaction: any StoreTransaction) throws -> SavedSchedule? {
        try transaction.postgres().query("""
            UPDATE scheduling_saved_schedules SET visibility = \(visibility.rawValue), updated_at = \(now)
            WHERE id = \(id) AND account_id = \(accountID)
            RETURNING \(unescaped: Self.columns)
            """).first.map(Self.schedule)
    }

    func friendsVisibleSchedules(of ownerIDs: [Int64], term: String?, in transaction: any StoreTransaction) throws -> [SavedSchedule] {
        guard !ownerIDs.isEmpty else { return [] }
        return try transaction.postgres().query("""
            SELECT \(unescaped: Self.columns) FROM scheduling_saved_schedules
            WHERE visibility = 'friends' AND account_id = ANY(\(ownerIDs)) AND (\(term)::text IS NULL OR term = \(term))
            ORDER BY account_id, id
            """).map(Self.schedule)
    }

    func delete(id: Int64, of accountID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().execute("DELETE FROM scheduling_saved_schedules WHERE id = \(id) AND account_id = \(accountID)") > 0
    }
}

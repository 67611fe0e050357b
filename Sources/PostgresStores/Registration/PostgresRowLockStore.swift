import Contracts
import PostgresNIO
import Registration
import Storage
import PostgresStorage

/// ``RowLocking`` on PostgreSQL: `SELECT ... FOR NO KEY UPDATE` on the students, ordered by
/// id. `NO KEY`: the rows' keys never change here, and enrollments' foreign keys (which take
/// `KEY SHARE`) go on meanwhile.
struct PostgresRowLockStore: RowLocking {
    func lock(students: [Int64], in transaction: any StoreTransaction) throws {
        guard !students.isEmpty else { return }
        try transaction.postgres().query(
            "SELECT account_id FROM registration_students WHERE account_id = ANY(\(students.sorted())) ORDER BY account_id FOR NO KEY UPDATE"
        )
    }
}

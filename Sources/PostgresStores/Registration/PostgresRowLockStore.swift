import Contracts
import PostgresNIO
import Registration
import Storage

/// ``RowLocking`` on PostgreSQL: `SELECT ... FOR NO KEY UPDATE` on the classes, then on the
/// students, each ordered by id. `NO KEY`: the rows' keys never change here, and enrollments'
/// foreign keys (which take `KEY SHARE` on both rows) go on meanwhile.
struct PostgresRowLockStore: RowLocking {
    func lock(classes: [Int64], students: [Int64], in transaction: any StoreTransaction) throws {
        let transaction = try transaction.postgres()
        if !classes.isEmpty {
            try transaction.query("SELECT id FROM registration_classes WHERE id = ANY(\(classes.sorted())) ORDER BY id FOR NO KEY UPDATE")
        }
        if !students.isEmpty {
            try transaction.query(
                "SELECT account_id FROM registration_students WHERE account_id = ANY(\(students.sorted())) ORDER BY account_id FOR NO KEY UPDATE"
            )
        }
    }
}

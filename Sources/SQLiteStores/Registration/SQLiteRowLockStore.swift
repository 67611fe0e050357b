import Contracts
import Registration

/// ``RowLocking`` on SQLite: its one writer holds the whole database, so there is nothing to lock.
struct SQLiteRowLockStore: RowLocking {
    func lock(students: [Int64], in transaction: any StoreTransaction) throws {}
}

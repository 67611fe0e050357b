public import Contracts

/// The rows a registration decides on, locked for the rest of its transaction before it reads
/// anything (``TransactionRunner/writeLockingRows(_:)``): the classes, then the students, each
/// in ascending id order, so two units never wait for each other in a circle. A class's row is
/// where every change of its seats, line and offers takes its turn; a student's row is where
/// their own registrations in different classes take theirs (the class limit and time
/// conflicts count every class they are in).
///
/// On SQLite the one writer holds every lock already, and locking does nothing.
public protocol RowLocking: Sendable {
    /// Locks the classes' rows, then the students' rows (those that exist), in ascending id
    /// order each.
    func lock(classes: [Int64], students: [Int64], in transaction: any StoreTransaction) throws
}

import Catalog
public import Contracts

/// The students' rows a registration decides on, locked for the rest of its transaction before
/// it reads anything (``TransactionRunner/writeLockingRows(_:)``), after the classes' rows (the
/// Catalog's, ``RegistrationStores/lock(classes:students:in:)``), each in ascending id order, so
/// two units never wait for each other in a circle. A student's row is where their own
/// registrations in different classes take their turns (the class limit and time conflicts
/// count every class they are in).
///
/// On SQLite the one writer holds every lock already, and locking does nothing.
public protocol RowLocking: Sendable {
    /// Locks the students' rows (those that exist), in ascending id order.
    func lock(students: [Int64], in transaction: any StoreTransaction) throws
}

extension RegistrationStores {
    /// Locks the classes' rows, then the students' rows: the order every registration takes
    /// its locks in.
    public func lock(classes: [Int64], students: [Int64], in transaction: any StoreTransaction) throws {
        try catalog.lockClasses(classes, in: transaction)
        try locks.lock(students: students, in: transaction)
    }
}

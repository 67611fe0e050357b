public import Catalog
public import Contracts

/// Moves a class's seat counters by a ``SeatChange``, in the use case's transaction.
///
/// The counters are Catalog's (the class row every browse reads); the enrollment rows are
/// Registration's, and its stores only write them. This rule stays partly in SQL on purpose:
/// the move is one relative `UPDATE` (`enrolled = enrolled + ?`), so two writers on PostgreSQL
/// can't lose each other's change, and the class row's CHECK (`enrolled + held <= seats`) makes
/// a move that would over-fill the class abort the whole transaction, enrollment row and all.
/// A change of nothing costs no statement.
public struct SeatCounters: Sendable {
    let catalog: any CatalogStoring

    public func move(_ change: SeatChange, classID: Int64, in db: any StoreTransaction) throws {
        guard !change.isNone else { return }
        try catalog.adjustSeats(classID: classID, enrolled: change.enrolled, held: change.held, waitlist: change.waitlist, in: db)
    }
}

extension RegistrationStores {
    /// The seat counters of the classes these stores' enrollments fill.
    public var seats: SeatCounters { SeatCounters(catalog: catalog) }
}

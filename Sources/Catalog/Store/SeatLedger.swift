public import GRDB

/// The seat counters on a class row (`enrolled`, `held`, `waitlist`) and their revision: the
/// Catalog's API for the module that enrolls students (Registration), called inside that
/// module's transaction so the count changes with the enrollment or not at all.
///
/// The class row's CHECK (`enrolled + held <= seats`) still guards the cap: an adjustment that
/// would over-fill a class aborts the caller's transaction.
public enum SeatLedger {
    /// Moves a class's counters by the given amounts and bumps its revision (which orders the
    /// updates the in-memory catalog receives).
    public static func adjust(classID: Int64, enrolled: Int = 0, held: Int = 0, waitlist: Int = 0, in db: Database) throws {
        try db.cachedStatement(sql: """
            UPDATE registration_classes
            SET enrolled = enrolled + ?, held = held + ?, waitlist = waitlist + ?, revision = revision + 1
            WHERE id = ?
            """).execute(arguments: [enrolled, held, waitlist, classID])
    }
}

/// The bounds every class row keeps, whatever its source (native or umd.io file, admin route):
/// numbers stay far from overflow and from what JavaScript clients can represent, and no row
/// carries more meetings or instructors than a real section has.
public enum ClassLimits {
    /// The largest class id: 2^53, the largest integer a JavaScript client reads exactly.
    public static let maximumID: Int64 = 1 << 53
    public static let maximumSeats = 100_000
    public static let maximumWaitlist = 100_000
    public static let maximumMeetings = 32
    public static let maximumInstructors = 32

    /// Throws ``RowError`` naming the first bound the row breaks.
    public static func check(_ row: CatalogDocument.Class) throws {
        if let id = row.id, !(1...maximumID).contains(id) { throw RowError("id must be between 1 and \(maximumID)") }
        guard row.term.count <= 40, row.scheduleNumber.count <= 40, row.section.count <= 40 else {
            throw RowError("term, schedule number and section are at most 40 characters")
        }
        guard (0...maximumSeats).contains(row.seats) else { throw RowError("seats must be between 0 and \(maximumSeats)") }
        guard (0...row.seats).contains(row.enrolled) else { throw RowError("enrolled (\(row.enrolled)) must be between 0 and seats (\(row.seats))") }
        guard (0...maximumWaitlist).contains(row.waitlist) else { throw RowError("waitlist must be between 0 and \(maximumWaitlist)") }
        guard row.meetings.count <= maximumMeetings else { throw RowError("a class has at most \(maximumMeetings) meetings") }
        guard row.instructors.count <= maximumInstructors else { throw RowError("a class has at most \(maximumInstructors) instructors") }
    }
}

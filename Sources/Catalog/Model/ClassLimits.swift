/// The bounds every class row keeps, whatever its source (native or umd.io file, admin route):
/// numbers stay far from overflow and from what JavaScript clients can represent, and no row
/// carries more meetings, instructors or linked sections than a real section has.
public enum ClassLimits {
    /// The largest class id: 2^53, the largest integer a JavaScript client reads exactly.
    public static let maximumID: Int64 = 1 << 53
    public static let maximumSeats = 100_000
    public static let maximumWaitlist = 100_000
    public static let maximumMeetings = 32
    public static let maximumInstructors = 32
    /// The longest component name (`Lecture`, `Laboratory`); a link names a section, at most
    /// 40 characters like every section code.
    public static let maximumComponentLength = 40
    /// The most sections one class may link to.
    public static let maximumLinks = 50

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
        guard row.component.count <= maximumComponentLength else { throw RowError("component is at most \(maximumComponentLength) characters") }
        guard row.links.count <= maximumLinks else { throw RowError("a class links to at most \(maximumLinks) sections") }
        for (index, link) in row.links.enumerated() {
            if let problem = linkProblem(link) { throw RowError("links[\(index)] \(problem)") }
        }
    }

    /// Why a linked section code cannot be stored (they are kept comma-separated), or nil.
    public static func linkProblem(_ link: String) -> String? {
        if link.isEmpty || link.count > 40 { return "must be a section code of 1 to 40 characters" }
        if link.contains(",") { return "must not contain a comma" }
        if link.first?.isWhitespace == true || link.last?.isWhitespace == true { return "must not start or end with a space" }
        return nil
    }
}

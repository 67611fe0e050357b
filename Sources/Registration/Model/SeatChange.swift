/// What one change to a student's standing does to a class's seat counters: how many seats are
/// taken by enrolled students, held by open offers, and how long the line is.
///
/// The counters live on the Catalog's class row (`CatalogStoring.adjustSeats`); the
/// use case that enrolls, drops, queues or offers names the change it makes, adds the changes
/// of one class together, and moves the counters once, in its own transaction (``SeatCounters``).
public struct SeatChange: Sendable, Equatable {
    public var enrolled = 0
    public var held = 0
    public var waitlist = 0

    public init(enrolled: Int = 0, held: Int = 0, waitlist: Int = 0) {
        self.enrolled = enrolled
        self.held = held
        self.waitlist = waitlist
    }

    /// A student took a seat.
    public static let enrolled = SeatChange(enrolled: 1)
    /// A student gave a seat up.
    public static let dropped = SeatChange(enrolled: -1)
    /// A student joined the line.
    public static let joinedLine = SeatChange(waitlist: 1)
    /// A student left the line (by choice, into the class, or with an expired offer).
    public static let leftLine = SeatChange(waitlist: -1)
    /// A seat was offered to the next in line: it is held for them until they answer.
    public static let offerMade = SeatChange(held: 1)
    /// An offer was claimed, declined or expired: its seat is no longer held.
    public static let offerClosed = SeatChange(held: -1)

    /// Whether the counters stay as they are.
    public var isNone: Bool { enrolled == 0 && held == 0 && waitlist == 0 }

    public static func + (lhs: SeatChange, rhs: SeatChange) -> SeatChange {
        SeatChange(enrolled: lhs.enrolled + rhs.enrolled, held: lhs.held + rhs.held, waitlist: lhs.waitlist + rhs.waitlist)
    }

    public static func += (lhs: inout SeatChange, rhs: SeatChange) { lhs = lhs + rhs }
}

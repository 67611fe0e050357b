public import Contracts
public import Foundation

/// A student's watch for an open seat: on one class, or on a course in a term (any section).
///
/// The alert is told once per open event of a class it watches (``SeatAlertRules``). Without
/// `rearm` it then rests until the student arms it again; with `rearm` it hears every open
/// event (a class must close before it can open again, so that is "again once it has closed").
/// With `notifyClosed` the student also hears when a class they were told about closes again.
public struct SeatAlert: Sendable, Equatable {
    /// What an alert watches.
    public enum Target: Sendable, Hashable {
        case classID(Int64)
        case course(CourseKey)
    }

    public var id: Int64
    public var accountID: Int64
    public var target: Target
    /// Tell the student every time a watched class opens, not only the first.
    public var rearm: Bool
    /// Tell the student when a class they were told about has no seat open again.
    public var notifyClosed: Bool
    public var armed: Bool
    public var createdAt: Date
    public var lastNotifiedAt: Date?

    public init(
        id: Int64, accountID: Int64, target: Target, rearm: Bool, notifyClosed: Bool, armed: Bool, createdAt: Date,
        lastNotifiedAt: Date? = nil
    ) {
        self.id = id
        self.accountID = accountID
        self.target = target
        self.rearm = rearm
        self.notifyClosed = notifyClosed
        self.armed = armed
        self.createdAt = createdAt
        self.lastNotifiedAt = lastNotifiedAt
    }

    /// Whether this alert watches the class `label` names.
    public func watches(_ label: ClassLabel) -> Bool {
        switch target {
        case .classID(let id): id == label.classId
        case .course(let course): course == label.courseKey
        }
    }
}

/// What a seat alert notification says: the course, the section and the class, never a bare id.
public enum SeatAlertText {
    /// `CS 540-02 (class 7036): 1 seat open`.
    public static func openedTitle(_ label: ClassLabel, openSeats: Int) -> String {
        "\(label.text): \(openSeats) seat\(openSeats == 1 ? "" : "s") open"
    }

    public static func openedBody(_ label: ClassLabel, openSeats: Int, alert: SeatAlert) -> String {
        let seats = openSeats == 1 ? "A seat is" : "\(openSeats) seats are"
        let watched = switch alert.target {
        case .classID: "the class you are watching"
        case .course(let course): "a section of \(course.subject) \(course.courseNumber) you are watching"
        }
        return "\(seats) open in \(label.text), \(label.title), \(watched) in \(label.term). Register before someone else does."
    }

    /// `CS 540-02 (class 7036) is full again`.
    public static func closedTitle(_ label: ClassLabel) -> String { "\(label.text) is full again" }

    public static func closedBody(_ label: ClassLabel, alert: SeatAlert) -> String {
        let next = alert.rearm ? " Your alert stays on: you will hear when a seat opens again." : ""
        return "No seat is open in \(label.text), \(label.title), any more.\(next)"
    }
}

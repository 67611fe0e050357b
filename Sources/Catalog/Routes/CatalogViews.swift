public import Contracts
import Foundation
public import GatewayHTTP

/// The v1 JSON shapes of the catalog, shared by every module that shows classes.
public enum CatalogViews {
    public struct Subject: Encodable, Sendable {
        public let id: Int64
        public let code: String
        public let title: String
        public let college: String
        public let classCount: Int

        public init(_ subject: CatalogSubject) {
            id = subject.id
            code = subject.code
            title = subject.title
            college = subject.college
            classCount = subject.classCount
        }
    }

    public struct Meeting: Encodable, Sendable {
        /// `["tue", "thu"]`; empty for TBA and online meetings.
        public let days: [String]
        /// `19:00`; null when TBA.
        public let start: String?
        public let end: String?
        public let building: String
        public let room: String
        public let type: String
        public let tba: Bool

        public init(_ meeting: Catalog.Meeting) {
            days = meeting.days.names
            start = meeting.start?.iso
            end = meeting.end?.iso
            building = meeting.building
            room = meeting.room
            type = meeting.kind
            tba = !meeting.isScheduled
        }
    }

    public struct Class: Encodable, Sendable {
        public let id: Int64
        public let term: String
        public let subjectId: Int64
        public let subject: String
        public let department: String
        /// `CS 540`.
        public let course: String
        public let courseNumber: String
        public let title: String
        public let fullTitle: String
        public let section: String
        public let scheduleNumber: String
        public let instructors: [String]
        public let units: String
        public let meetingType: String
        public let meetings: [Meeting]
        /// `Lecture`, `Lab`, ...: the part of a multi-component course this section is; empty
        /// when the section is whole on its own.
        public let component: String
        /// Section codes of the same course and term this section goes with; empty when any.
        public let links: [String]
        public let seats: Int
        public let enrolled: Int
        /// Seats held for waitlisted students who were offered them.
        public let heldSeats: Int
        public let openSeats: Int
        public let waitlist: Int
        /// `open`, or `closed` / `cancelled` when the registrar says so (registrar terms): a
        /// section that is not open has no open seat, whatever its counts.
        public let status: String
        // Detail only.
        public let college: String?
        public let description: String?
        public let prerequisite: String?
        /// For a signed-in student: friends who take the class (at most 20, by name), and how
        /// many in all. Absent for anyone else, and where no friend takes it.
        public var friends: [Friend]?
        public var friendCount: Int?

        /// A friend in a class: their account and the name they show.
        public struct Friend: Encodable, Sendable {
            public let accountId: Int64
            public let displayName: String
        }

        /// The class with the friends who take it.
        public mutating func show(_ friendsInClass: ClassFriends) {
            friends = friendsInClass.friends.map { Friend(accountId: $0.accountID, displayName: $0.displayName) }
            friendCount = friendsInClass.count
        }

        public init(_ listing: ClassListing, detail: Bool = false) {
            let info = listing.info
            id = info.id
            term = info.term
            subjectId = info.subjectID
            subject = info.subjectCode
            department = info.department
            course = info.courseLabel
            courseNumber = info.courseNumber.description
            title = info.title
            fullTitle = info.fullTitle
            section = info.section
            scheduleNumber = info.scheduleNumber
            instructors = info.instructors
            units = info.units
            meetingType = info.meetingType
            meetings = info.meetings.map(Meeting.init)
            component = info.component
            links = info.links
            seats = listing.seats.seats
            enrolled = listing.seats.enrolled
            heldSeats = listing.seats.held
            openSeats = listing.seats.openSeats
            waitlist = listing.seats.waitlist
            status = listing.seats.status.name
            college = detail ? info.college : nil
            description = detail ? info.description : nil
            prerequisite = detail ? info.prerequisite : nil
        }
    }

    /// The 404 problem for a class id nothing has.
    public static func classNotFound(_ id: Int64) -> Problem { classNotFound("\(id)") }

    /// The same for an id as written in the address.
    public static func classNotFound(_ id: String) -> Problem {
        Problem(type: "class-not-found", title: "Class not found", status: .notFound, detail: "No class has id \(id).")
    }
}

/// A subject (major, department) and how many classes it offers.
public struct CatalogSubject: Sendable, Equatable, Codable {
    public var id: Int64
    /// The short code printed before course numbers (`CS`, `ASTR`).
    public var code: String
    public var title: String
    public var college: String
    public var classCount: Int

    public init(id: Int64, code: String, title: String, college: String, classCount: Int = 0) {
        self.id = id
        self.code = code
        self.title = title
        self.college = college
        self.classCount = classCount
    }
}

/// A class section's catalog facts: what, when, where and who. Seat numbers change with every
/// registration and live in ``SeatCount``.
public struct CatalogClass: Sendable, Equatable {
    public var id: Int64
    public var term: String
    public var subjectID: Int64
    public var subjectCode: String
    /// The subject's title (SDSU calls it the department).
    public var department: String
    public var college: String
    public var courseNumber: CourseNumber
    /// The short, catalog-printed title (`SOFTWARE INTERNATNLIZATN`).
    public var title: String
    public var fullTitle: String
    public var description: String
    public var prerequisite: String
    public var units: String
    public var section: String
    public var scheduleNumber: String
    public var instructors: [String]
    public var meetingType: String
    public var meetings: [Meeting]
    /// The component this section is of a course that needs one of each (`Lecture`, `Lab`,
    /// `Discussion`); empty when every section is whole on its own.
    public var component: String
    /// Section codes of the same course and term this section goes with (a lab naming its
    /// lectures); empty when it goes with any.
    public var links: [String]

    public init(
        id: Int64, term: String, subjectID: Int64, subjectCode: String, department: String, college: String,
        courseNumber: CourseNumber, title: String, fullTitle: String, description: String, prerequisite: String,
        units: String, section: String, scheduleNumber: String, instructors: [String], meetingType: String,
        meetings: [Meeting], component: String = "", links: [String] = []
    ) {
        self.id = id
        self.term = term
        self.subjectID = subjectID
        self.subjectCode = subjectCode
        self.department = department
        self.college = college
        self.courseNumber = courseNumber
        self.title = title
        self.fullTitle = fullTitle
        self.description = description
        self.prerequisite = prerequisite
        self.units = units
        self.section = section
        self.scheduleNumber = scheduleNumber
        self.instructors = instructors
        self.meetingType = meetingType
        self.meetings = meetings
        self.component = component
        self.links = links
    }

    /// `CS 540`.
    public var courseLabel: String { "\(subjectCode) \(courseNumber)" }
}

/// A class's live seat numbers. `revision` grows with every change, so a newer count is never
/// overwritten by an older one that arrives late.
public struct SeatCount: Sendable, Equatable {
    public var seats: Int
    public var enrolled: Int
    /// Seats held for open offers to waitlisted students.
    public var held: Int
    public var waitlist: Int
    public var revision: Int64
    /// Whether the registrar closed or cancelled the section (registrar terms); a class that is
    /// not ``SectionStatus/open`` has no open seat, whatever its counts.
    public var status: SectionStatus

    public init(seats: Int, enrolled: Int, held: Int, waitlist: Int, revision: Int64, status: SectionStatus = .open) {
        self.seats = seats
        self.enrolled = enrolled
        self.held = held
        self.waitlist = waitlist
        self.revision = revision
        self.status = status
    }

    public var openSeats: Int { status == .open ? max(0, seats - enrolled - held) : 0 }
    public var isFull: Bool { openSeats == 0 }
}

/// A subject as one term's catalog names it: its title and college there.
public struct TermSubjectName: Sendable, Equatable {
    public var title: String
    public var college: String

    public init(title: String, college: String) {
        self.title = title
        self.college = college
    }
}

/// A section's status as the registrar reports it. Gateway terms' classes are always
/// ``open`` (full or not is a matter of counts); stored as its raw value.
public enum SectionStatus: Int, Sendable, Equatable, CaseIterable {
    case open = 0
    case closed = 1
    case cancelled = 2

    /// `open`, `closed`, `cancelled`: how the registrar's feed and the API write it.
    public var name: String {
        switch self {
        case .open: "open"
        case .closed: "closed"
        case .cancelled: "cancelled"
        }
    }

    public init?(name: String) {
        guard let status = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = status
    }
}

/// A class with its current seat numbers: what detail views show.
public struct ClassListing: Sendable, Equatable {
    public var info: CatalogClass
    public var seats: SeatCount

    public init(info: CatalogClass, seats: SeatCount) {
        self.info = info
        self.seats = seats
    }
}

/// What the rules need to know about one class: its identity, term, meetings and seats.
public struct ClassSeats: Sendable, Equatable {
    public var id: Int64
    public var term: String
    public var meetings: [Meeting]
    /// Seats the class has.
    public var seats: Int
    /// Students enrolled (imported baseline plus the gateway's own enrollments).
    public var enrolled: Int
    /// Seats held for waitlisted students who were offered them and have not answered yet.
    public var held: Int
    /// Whether the class's term takes its seats from the registrar: students register there,
    /// not through the gateway.
    public var seatsAtRegistrar: Bool
    /// The registrar's status of the section (``SectionStatus/open`` in gateway terms).
    public var status: SectionStatus

    public init(
        id: Int64, term: String, meetings: [Meeting], seats: Int, enrolled: Int, held: Int = 0, seatsAtRegistrar: Bool = false,
        status: SectionStatus = .open
    ) {
        self.id = id
        self.term = term
        self.meetings = meetings
        self.seats = seats
        self.enrolled = enrolled
        self.held = held
        self.seatsAtRegistrar = seatsAtRegistrar
        self.status = status
    }

    /// Seats anyone may take now: neither enrolled nor held for an offer, in an open section.
    public var openSeats: Int { status == .open ? max(0, seats - enrolled - held) : 0 }
}

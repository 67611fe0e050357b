import Foundation
public import GatewayCore

/// A catalog to import, already parsed from its file format into typed rows. Rows that could
/// not be parsed are in ``rejected`` with their reasons; the importer adds the rows the
/// database refuses (unknown subject, capacity below current enrollment, ...).
public struct CatalogDocument: Sendable {
    public struct Subject: Sendable, Equatable {
        /// Where the row came from, for reports: `subjects[3]` or `CS`.
        public var label: String
        /// Fixed id (the SDSU protocol's subject ids); nil lets the database choose.
        public var id: Int64?
        public var code: String
        public var title: String
        /// nil keeps an existing subject's college (new subjects get `Unassigned`).
        public var college: String?

        public init(label: String, id: Int64? = nil, code: String, title: String, college: String?) {
            self.label = label
            self.id = id
            self.code = code
            self.title = title
            self.college = college
        }
    }

    public struct Course: Sendable, Equatable {
        public var label: String
        public var subjectCode: String
        public var number: CourseNumber
        public var title: String
        public var fullTitle: String
        public var description: String
        public var prerequisite: String
        public var units: String
        /// Who may take the course (Registration's eligibility requirements, as
        /// `PUT /v1/admin/registration/requirements` takes them without `term` and `course`),
        /// kept as the file's JSON: Registration reads it; nil when the row has none.
        public var requirements: JSONValue?

        public init(
            label: String, subjectCode: String, number: CourseNumber, title: String, fullTitle: String,
            description: String, prerequisite: String, units: String, requirements: JSONValue? = nil
        ) {
            self.requirements = requirements
            self.label = label
            self.subjectCode = subjectCode
            self.number = number
            self.title = title
            self.fullTitle = fullTitle
            self.description = description
            self.prerequisite = prerequisite
            self.units = units
        }
    }

    public struct Class: Sendable, Equatable {
        public var label: String
        /// Fixed id (the SDSU protocol's class ids); nil keeps the id of the class with the same
        /// term and schedule number, or lets the database choose for a new one.
        public var id: Int64?
        public var term: String
        public var subjectCode: String
        public var courseNumber: CourseNumber
        public var scheduleNumber: String
        public var section: String
        public var instructors: [String]
        public var meetingType: String
        public var seats: Int
        /// Students enrolled outside the gateway (the source system's count).
        public var enrolled: Int
        /// Students waitlisted outside the gateway.
        public var waitlist: Int
        public var meetings: [Meeting]
        /// The component this section is of a course that needs one of each (`Lecture`, `Lab`);
        /// empty when the section is whole on its own.
        public var component: String
        /// Section codes of the same course and term this section goes with (a lab naming its
        /// lectures); empty when it goes with any.
        public var links: [String]

        public init(
            label: String, id: Int64? = nil, term: String, subjectCode: String, courseNumber: CourseNumber,
            scheduleNumber: String, section: String, instructors: [String], meetingType: String, seats: Int,
            enrolled: Int = 0, waitlist: Int = 0, meetings: [Meeting], component: String = "", links: [String] = []
        ) {
            self.label = label
            self.id = id
            self.term = term
            self.subjectCode = subjectCode
            self.courseNumber = courseNumber
            self.scheduleNumber = scheduleNumber
            self.section = section
            self.instructors = instructors
            self.meetingType = meetingType
            self.seats = seats
            self.enrolled = enrolled
            self.waitlist = waitlist
            self.meetings = meetings
            self.component = component
            self.links = links
        }
    }

    public var subjects: [Subject]
    public var courses: [Course]
    public var classes: [Class]
    public var rejected: [RejectedRow]

    public init(subjects: [Subject] = [], courses: [Course] = [], classes: [Class] = [], rejected: [RejectedRow] = []) {
        self.subjects = subjects
        self.courses = courses
        self.classes = classes
        self.rejected = rejected
    }
}

/// A row that was not imported, and why.
public struct RejectedRow: Sendable, Equatable, Codable {
    public var row: String
    public var reason: String

    public init(row: String, reason: String) {
        self.row = row
        self.reason = reason
    }
}

/// Parsing helpers shared by the formats.
enum RowParsing {
    /// Parses a meeting's days and times; the error is worded for an import report.
    static func meeting(
        days rawDays: String, start rawStart: String?, end rawEnd: String?, building: String, room: String, kind: String
    ) -> Result<Meeting, RowError> {
        guard let days = Weekdays(parsing: rawDays) else { return .failure(RowError("days '\(rawDays)' are not days of the week")) }
        let startText = rawStart?.trimmingCharacters(in: .whitespaces) ?? ""
        let endText = rawEnd?.trimmingCharacters(in: .whitespaces) ?? ""
        let tba = ["", "TBA", "tba", "ARR"]
        if tba.contains(startText), tba.contains(endText) {
            return .success(Meeting(days: days, start: nil, end: nil, building: building, room: room, kind: kind))
        }
        guard let start = TimeOfDay(parsing: startText), start.minutes < 1440 else {
            return .failure(RowError("start time '\(startText)' is not a time"))
        }
        guard let end = TimeOfDay(parsing: endText) else { return .failure(RowError("end time '\(endText)' is not a time")) }
        guard start < end else { return .failure(RowError("the meeting ends (\(end)) before it starts (\(start))")) }
        return .success(Meeting(days: days, start: start, end: end, building: building, room: room, kind: kind))
    }

    /// Units as SDSU prints them: `3` becomes `3.0`; other text is kept.
    static func units(_ raw: String) -> String {
        let text = raw.trimmingCharacters(in: .whitespaces)
        if let whole = Int(text) { return "\(whole).0" }
        return text
    }
}

/// Why a row was rejected.
public struct RowError: Error, Sendable, Equatable {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
}

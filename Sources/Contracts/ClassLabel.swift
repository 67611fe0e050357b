/// How a class is named to a student in every notification: `CS 540-02 (class 7036)`.
///
/// Registration fills it from the catalog when it reports an event, so a notification names
/// the course even when the class has since been deleted.
public struct ClassLabel: Codable, Sendable, Hashable {
    public var classId: Int64
    /// The term code the class is offered in (`2025-spring`).
    public var term: String
    /// The subject code (`CS`).
    public var subject: String
    /// The course number as the catalog prints it (`540`, `498AB`).
    public var courseNumber: String
    /// The section code (`02`); empty when the catalog gives none.
    public var section: String
    /// The course's short title.
    public var title: String

    public init(classId: Int64, term: String, subject: String, courseNumber: String, section: String, title: String) {
        self.classId = classId
        self.term = term
        self.subject = subject
        self.courseNumber = courseNumber
        self.section = section
        self.title = title
    }

    /// `CS 540`.
    public var course: String { "\(subject) \(courseNumber)" }

    /// The course this class is a section of.
    public var courseKey: CourseKey { CourseKey(term: term, subject: subject, courseNumber: courseNumber) }

    /// `CS 540-02 (class 7036)`: the course, the section and the class id.
    public var text: String {
        section.isEmpty ? "\(course) (class \(classId))" : "\(course)-\(section) (class \(classId))"
    }

    /// What a notification says when no label can be had (a job queued before labels existed
    /// for a class that is gone): the class id alone.
    public static func describe(_ label: ClassLabel?, classID: Int64) -> String {
        label?.text ?? "class \(classID)"
    }
}

/// A course in a term, any section: what a course seat alert watches.
public struct CourseKey: Codable, Sendable, Hashable, CustomStringConvertible {
    public var term: String
    public var subject: String
    public var courseNumber: String

    /// Subject and number are kept upper-cased, as the catalog stores them.
    public init(term: String, subject: String, courseNumber: String) {
        self.term = term
        self.subject = subject.uppercased()
        self.courseNumber = courseNumber.uppercased()
    }

    /// `CS 540 in 2025-spring`.
    public var description: String { "\(subject) \(courseNumber) in \(term)" }
}

/// The classes a module may name: answered by Registration from the catalog, asked by Push
/// when a student watches a class or a course, and when it words a notification.
public protocol ClassDirectory: Sendable {
    /// The class's label, or nil when there is no such class.
    func label(classID: Int64) async throws -> ClassLabel?
    /// The classes (sections) of a course in a term; empty when there are none.
    func classes(of course: CourseKey) async throws -> [ClassLabel]
}

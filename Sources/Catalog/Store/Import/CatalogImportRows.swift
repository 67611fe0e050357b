public import Foundation

/// A subject as an import finds it.
package struct StoredSubject {
    package let id: Int64
    package let title: String
    package let college: String

    package init(id: Int64, title: String, college: String) {
        self.id = id
        self.title = title
        self.college = college
    }
}

/// A course's id and its five text fields (title, full title, description, prerequisite, units).
package struct StoredCourse {
    package let id: Int64
    package let fields: [String]

    package init(id: Int64, fields: [String]) {
        self.id = id
        self.fields = fields
    }
}

/// A class row as an import compares it.
package struct StoredClass {
    package let id: Int64
    package let courseID: Int64
    /// term, schedule number, section, instructors (joined), meeting type, component, links (joined).
    package let text: [String]
    package let seats: Int
    package let baseEnrolled: Int
    package let baseWaitlist: Int
    package let enrolled: Int
    package let held: Int
    package let waitlist: Int

    package init(id: Int64, courseID: Int64, text: [String], seats: Int, baseEnrolled: Int, baseWaitlist: Int, enrolled: Int, held: Int, waitlist: Int) {
        self.id = id
        self.courseID = courseID
        self.text = text
        self.seats = seats
        self.baseEnrolled = baseEnrolled
        self.baseWaitlist = baseWaitlist
        self.enrolled = enrolled
        self.held = held
        self.waitlist = waitlist
    }
}

/// A class row as an import writes it.
package struct ClassRowValues {
    package let id: Int64
    package let term: String
    package let courseID: Int64
    package let scheduleNumber: String
    package let section: String
    package let instructors: String
    package let meetingType: String
    package let seats: Int
    package let baseEnrolled: Int
    package let baseWaitlist: Int
    package let enrolled: Int
    package let waitlist: Int
    package let component: String
    package let links: String
}

/// The rows a catalog import reads and writes, inside one open transaction: each backend's
/// catalog store answers it, so the import's rules (``CatalogImporter``) are written once.
package protocol CatalogImportRows {
    /// Runs `body` in a savepoint: a row the database refuses is undone whole.
    func savepoint(_ body: () throws -> Void) throws
    /// Why the database refused a row, when `error` is a constraint violation.
    func constraintViolation(_ error: any Error) -> String?

    func subject(code: String) throws -> StoredSubject?
    func subjectCode(id: Int64) throws -> String?
    func insertSubject(id: Int64?, code: String, title: String, college: String) throws
    func updateSubject(id: Int64, title: String, college: String) throws
    /// Keeps `name` as the subject's title and college in every term that has its classes and
    /// no name of its own yet (before the subject is renamed for another term).
    func keepSubjectName(subjectID: Int64, _ name: TermSubjectName) throws
    /// The subject's title and college in `term`, as that term's catalog gives them.
    func setTermSubjectName(term: String, subjectID: Int64, _ name: TermSubjectName) throws

    /// Every course of a subject, by number (an import reads each subject's once).
    func courses(subjectID: Int64) throws -> [CourseNumber: StoredCourse]
    /// Inserts a course; its id.
    func insertCourse(subjectID: Int64, number: CourseNumber, fields: [String]) throws -> Int64
    func updateCourse(id: Int64, fields: [String]) throws

    /// Every class of `term`, by schedule number.
    func classIDs(term: String) throws -> [String: Int64]
    /// Every class id in the catalog (an import asks for a stored class only when its id is one).
    func allClassIDs() throws -> Set<Int64>
    func storedClass(id: Int64) throws -> StoredClass?
    func meetings(of classID: Int64) throws -> [Meeting]
    func nextClassID() throws -> Int64
    func insertClass(_ values: ClassRowValues) throws
    /// Updates every column of `values` and moves the class's revision.
    func updateClass(_ values: ClassRowValues) throws
    func insertMeetings(_ meetings: [Meeting], classID: Int64) throws
    func deleteMeetings(classID: Int64) throws
    func bumpVersion() throws
}

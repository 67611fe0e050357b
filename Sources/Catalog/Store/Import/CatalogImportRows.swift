public import Foundation

/// A subject as an import finds it.
struct StoredSubject {
    let id: Int64
    let title: String
    let college: String
}

/// A course's id and its five text fields (title, full title, description, prerequisite, units).
struct StoredCourse {
    let id: Int64
    let fields: [String]
}

/// A class row as an import compares it.
struct StoredClass {
    let id: Int64
    let courseID: Int64
    /// term, schedule number, section, instructors (joined), meeting type, component, links (joined).
    let text: [String]
    let seats: Int
    let baseEnrolled: Int
    let baseWaitlist: Int
    let enrolled: Int
    let held: Int
    let waitlist: Int
}

/// A class row as an import writes it.
struct ClassRowValues {
    let id: Int64
    let term: String
    let courseID: Int64
    let scheduleNumber: String
    let section: String
    let instructors: String
    let meetingType: String
    let seats: Int
    let baseEnrolled: Int
    let baseWaitlist: Int
    let enrolled: Int
    let waitlist: Int
    let component: String
    let links: String
}

/// The rows a catalog import reads and writes, inside one open transaction: each backend's
/// catalog store answers it, so the import's rules (``CatalogImporter``) are written once.
protocol CatalogImportRows {
    /// Runs `body` in a savepoint: a row the database refuses is undone whole.
    func savepoint(_ body: () throws -> Void) throws
    /// Why the database refused a row, when `error` is a constraint violation.
    func constraintViolation(_ error: any Error) -> String?

    func subject(code: String) throws -> StoredSubject?
    func subjectCode(id: Int64) throws -> String?
    func insertSubject(id: Int64?, code: String, title: String, college: String) throws
    func updateSubject(id: Int64, title: String, college: String) throws

    func course(subjectID: Int64, number: CourseNumber) throws -> StoredCourse?
    func insertCourse(subjectID: Int64, number: CourseNumber, fields: [String]) throws
    func updateCourse(id: Int64, fields: [String]) throws

    func classID(term: String, scheduleNumber: String) throws -> Int64?
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

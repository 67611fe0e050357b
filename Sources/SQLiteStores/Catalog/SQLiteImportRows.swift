public import Catalog
public import GRDB

/// ``CatalogImportRows`` on SQLite: the import's reads and writes in `db`'s transaction, each
/// statement cached (an import runs them once per row of a 4,000-class catalog).
struct SQLiteImportRows: CatalogImportRows {
    let db: Database

    func savepoint(_ body: () throws -> Void) throws {
        try db.inSavepoint {
            try body()
            return .commit
        }
    }

    func constraintViolation(_ error: any Error) -> String? {
        guard let error = error as? DatabaseError, error.resultCode == .SQLITE_CONSTRAINT else { return nil }
        return error.message ?? "constraint"
    }

    func subject(code: String) throws -> StoredSubject? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT id, title, college FROM registration_subjects WHERE code = ?"), arguments: [code])
            .map { StoredSubject(id: $0["id"], title: $0["title"], college: $0["college"]) }
    }

    func subjectCode(id: Int64) throws -> String? {
        try String.fetchOne(db.cachedStatement(sql: "SELECT code FROM registration_subjects WHERE id = ?"), arguments: [id])
    }

    func insertSubject(id: Int64?, code: String, title: String, college: String) throws {
        try db.cachedStatement(sql: "INSERT INTO registration_subjects (id, code, title, college) VALUES (?, ?, ?, ?)")
            .execute(arguments: [id, code, title, college])
    }

    func updateSubject(id: Int64, title: String, college: String) throws {
        try db.cachedStatement(sql: "UPDATE registration_subjects SET title = ?, college = ? WHERE id = ?").execute(arguments: [title, college, id])
    }

    func keepSubjectName(subjectID: Int64, _ name: TermSubjectName) throws {
        try db.cachedStatement(sql: """
            INSERT INTO catalog_term_subjects (term, subject_id, title, college)
            SELECT DISTINCT c.term, co.subject_id, ?, ? FROM registration_classes c JOIN registration_courses co ON co.id = c.course_id
            WHERE co.subject_id = ?
            ON CONFLICT (term, subject_id) DO NOTHING
            """).execute(arguments: [name.title, name.college, subjectID])
    }

    func setTermSubjectName(term: String, subjectID: Int64, _ name: TermSubjectName) throws {
        try db.cachedStatement(sql: """
            INSERT INTO catalog_term_subjects (term, subject_id, title, college) VALUES (?, ?, ?, ?)
            ON CONFLICT (term, subject_id) DO UPDATE SET title = excluded.title, college = excluded.college
            """).execute(arguments: [term, subjectID, name.title, name.college])
    }

    func courses(subjectID: Int64) throws -> [CourseNumber: StoredCourse] {
        var courses: [CourseNumber: StoredCourse] = [:]
        let rows = try Row.fetchCursor(
            db.cachedStatement(sql: "SELECT id, number, suffix, title, full_title, description, prerequisite, units FROM registration_courses WHERE subject_id = ?"),
            arguments: [subjectID]
        )
        while let row = try rows.next() {
            courses[CourseNumber(number: row["number"], suffix: row["suffix"])] = StoredCourse(
                id: row["id"], fields: [row["title"], row["full_title"], row["description"], row["prerequisite"], row["units"]]
            )
        }
        return courses
    }

    func insertCourse(subjectID: Int64, number: CourseNumber, fields: [String]) throws -> Int64 {
        var arguments: StatementArguments = [subjectID, number.number, number.suffix]
        arguments += StatementArguments(fields)
        try db.cachedStatement(sql: """
            INSERT INTO registration_courses (subject_id, number, suffix, title, full_title, description, prerequisite, units)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: arguments)
        return db.lastInsertedRowID
    }

    func updateCourse(id: Int64, fields: [String]) throws {
        var arguments = StatementArguments(fields)
        arguments += [id]
        try db.cachedStatement(sql: """
            UPDATE registration_courses SET title = ?, full_title = ?, description = ?, prerequisite = ?, units = ? WHERE id = ?
            """).execute(arguments: arguments)
    }

    func classIDs(term: String) throws -> [String: Int64] {
        var ids: [String: Int64] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT schedule_number, id FROM registration_classes WHERE term = ?", arguments: [term])
        while let row = try rows.next() { ids[row[0]] = row[1] }
        return ids
    }

    func storedClass(id: Int64) throws -> StoredClass? {
        try Row.fetchOne(
            db.cachedStatement(sql: """
                SELECT id, term, course_id, schedule_number, section, instructors, meeting_type, seats, base_enrolled,
                       base_waitlist, enrolled, held, waitlist, component, links FROM registration_classes WHERE id = ?
                """),
            arguments: [id]
        ).map { row in
            StoredClass(
                id: row["id"], courseID: row["course_id"],
                text: [row["term"], row["schedule_number"], row["section"], row["instructors"], row["meeting_type"], row["component"], row["links"]],
                seats: row["seats"], baseEnrolled: row["base_enrolled"], baseWaitlist: row["base_waitlist"], enrolled: row["enrolled"],
                held: row["held"], waitlist: row["waitlist"]
            )
        }
    }

    func meetings(of classID: Int64) throws -> [Meeting] {
        try SQLiteCatalogStore.classSeats(of: [classID], in: db)[classID]?.meetings ?? []
    }

    func allClassIDs() throws -> Set<Int64> {
        try Set(Int64.fetchAll(db.cachedStatement(sql: "SELECT id FROM registration_classes")))
    }

    func nextClassID() throws -> Int64 {
        try SQLiteCatalogStore().nextClassID(in: db)
    }

    func insertClass(_ values: ClassRowValues) throws {
        try db.cachedStatement(sql: """
            INSERT INTO registration_classes (id, term, course_id, schedule_number, section, instructors, meeting_type,
                seats, base_enrolled, base_waitlist, enrolled, waitlist, component, links)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [
                values.id, values.term, values.courseID, values.scheduleNumber, values.section, values.instructors, values.meetingType,
                values.seats, values.baseEnrolled, values.baseWaitlist, values.enrolled, values.waitlist, values.component, values.links,
            ])
    }

    func updateClass(_ values: ClassRowValues) throws {
        try db.cachedStatement(sql: """
            UPDATE registration_classes SET term = ?, course_id = ?, schedule_number = ?, section = ?, instructors = ?,
                meeting_type = ?, seats = ?, base_enrolled = ?, base_waitlist = ?, enrolled = ?, waitlist = ?,
                component = ?, links = ?, revision = revision + 1
            WHERE id = ?
            """).execute(arguments: [
                values.term, values.courseID, values.scheduleNumber, values.section, values.instructors, values.meetingType, values.seats,
                values.baseEnrolled, values.baseWaitlist, values.enrolled, values.waitlist, values.component, values.links, values.id,
            ])
    }

    func insertMeetings(_ meetings: [Meeting], classID: Int64) throws {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO registration_meetings (class_id, ordinal, days, start_minute, end_minute, building, room, kind)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for (ordinal, meeting) in meetings.enumerated() {
            try statement.execute(arguments: [
                classID, ordinal, Int(meeting.days.rawValue), meeting.start?.minutes, meeting.end?.minutes, meeting.building, meeting.room, meeting.kind,
            ])
        }
    }

    func deleteMeetings(classID: Int64) throws {
        try db.cachedStatement(sql: "DELETE FROM registration_meetings WHERE class_id = ?").execute(arguments: [classID])
    }

    func bumpVersion() throws {
        try SQLiteCatalogStore().bumpVersion(in: db)
    }
}

extension CatalogImporter {
    /// Applies the document inside `db`'s current transaction (see ``apply(_:to:)``).
    public func apply(_ document: CatalogDocument, in db: Database) throws -> (ImportReport, [Int64]) {
        try apply(document, to: SQLiteImportRows(db: db))
    }
}

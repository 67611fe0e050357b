public import Catalog
import PostgresNIO
import Storage
import PostgresStorage

/// ``CatalogImportRows`` on PostgreSQL, in the import's transaction. A row the database
/// refuses (a unique or check violation) is undone by its savepoint, and the transaction goes on.
struct PostgresImportRows: CatalogImportRows {
    let transaction: PostgresTransaction

    func savepoint(_ body: () throws -> Void) throws {
        try transaction.savepoint(body)
    }

    func constraintViolation(_ error: any Error) -> String? {
        guard let error = error as? PSQLError, let state = error.serverInfo?[.sqlState], state.hasPrefix("23") else { return nil }
        return error.serverInfo?[.message] ?? "constraint"
    }

    func subject(code: String) throws -> StoredSubject? {
        try transaction.query("SELECT id, title, college FROM registration_subjects WHERE code = \(code)").first.map { row in
            let (id, title, college) = try row.decode((Int64, String, String).self)
            return StoredSubject(id: id, title: title, college: college)
        }
    }

    func subjectCode(id: Int64) throws -> String? {
        try transaction.query("SELECT code FROM registration_subjects WHERE id = \(id)").first?.decode(String.self)
    }

    func insertSubject(id: Int64?, code: String, title: String, college: String) throws {
        if let id {
            try transaction.execute("INSERT INTO registration_subjects (id, code, title, college) VALUES (\(id), \(code), \(title), \(college))")
            // Keep the identity ahead of ids given explicitly.
            try transaction.execute("""
                SELECT setval(pg_get_serial_sequence('registration_subjects', 'id'), GREATEST((SELECT MAX(id) FROM registration_subjects), 1))
                """)
        } else {
            try transaction.execute("INSERT INTO registration_subjects (code, title, college) VALUES (\(code), \(title), \(college))")
        }
    }

    func updateSubject(id: Int64, title: String, college: String) throws {
        try transaction.execute("UPDATE registration_subjects SET title = \(title), college = \(college) WHERE id = \(id)")
    }

    func keepSubjectName(subjectID: Int64, _ name: TermSubjectName) throws {
        try transaction.execute("""
            INSERT INTO catalog_term_subjects (term, subject_id, title, college)
            SELECT DISTINCT c.term, co.subject_id, \(name.title), \(name.college)
            FROM registration_classes c JOIN registration_courses co ON co.id = c.course_id
            WHERE co.subject_id = \(subjectID)
            ON CONFLICT (term, subject_id) DO NOTHING
            """)
    }

    func setTermSubjectName(term: String, subjectID: Int64, _ name: TermSubjectName) throws {
        try transaction.execute("""
            INSERT INTO catalog_term_subjects (term, subject_id, title, college) VALUES (\(term), \(subjectID), \(name.title), \(name.college))
            ON CONFLICT (term, subject_id) DO UPDATE SET title = excluded.title, college = excluded.college
            """)
    }

    func courses(subjectID: Int64) throws -> [CourseNumber: StoredCourse] {
        var courses: [CourseNumber: StoredCourse] = [:]
        for row in try transaction.query("""
            SELECT id, number, suffix, title, full_title, description, prerequisite, units FROM registration_courses WHERE subject_id = \(subjectID)
            """) {
            let (id, number, suffix, title, fullTitle, description, prerequisite, units) =
                try row.decode((Int64, Int, String, String, String, String, String, String).self)
            courses[CourseNumber(number: number, suffix: suffix)] = StoredCourse(id: id, fields: [title, fullTitle, description, prerequisite, units])
        }
        return courses
    }

    func insertCourse(subjectID: Int64, number: CourseNumber, fields: [String]) throws -> Int64 {
        guard let id = try transaction.query("""
            INSERT INTO registration_courses (subject_id, number, suffix, title, full_title, description, prerequisite, units)
            VALUES (\(subjectID), \(number.number), \(number.suffix), \(fields[0]), \(fields[1]), \(fields[2]), \(fields[3]), \(fields[4]))
            RETURNING id
            """).first?.decode(Int64.self) else { throw RowError("the course was not stored") }
        return id
    }

    func updateCourse(id: Int64, fields: [String]) throws {
        try transaction.execute("""
            UPDATE registration_courses SET title = \(fields[0]), full_title = \(fields[1]), description = \(fields[2]),
                prerequisite = \(fields[3]), units = \(fields[4])
            WHERE id = \(id)
            """)
    }

    func classIDs(term: String) throws -> [String: Int64] {
        var ids: [String: Int64] = [:]
        for row in try transaction.query("SELECT schedule_number, id FROM registration_classes WHERE term = \(term)") {
            let (scheduleNumber, id) = try row.decode((String, Int64).self)
            ids[scheduleNumber] = id
        }
        return ids
    }

    /// Positions in ``storedClass(id:)``'s query past the nine columns decoded as a tuple
    /// (`id` … `base_enrolled`).
    enum StoredClassColumn {
        static let baseWaitlist = 9, enrolled = 10, held = 11, waitlist = 12, component = 13, links = 14
    }

    func storedClass(id: Int64) throws -> StoredClass? {
        try transaction.query("""
            SELECT id, term, course_id, schedule_number, section, instructors, meeting_type, seats, base_enrolled,
                   base_waitlist, enrolled, held, waitlist, component, links FROM registration_classes WHERE id = \(id)
            """).first.map { row in
            let (id, term, courseID, scheduleNumber, section, instructors, meetingType, seats, baseEnrolled) =
                try row.decode((Int64, String, Int64, String, String, String, String, Int, Int).self)
            let cells = row.makeRandomAccess()
            typealias C = StoredClassColumn
            return StoredClass(
                id: id, courseID: courseID,
                text: [
                    term, scheduleNumber, section, instructors, meetingType,
                    try cells[C.component].decode(String.self), try cells[C.links].decode(String.self),
                ],
                seats: seats, baseEnrolled: baseEnrolled, baseWaitlist: try cells[C.baseWaitlist].decode(Int.self),
                enrolled: try cells[C.enrolled].decode(Int.self), held: try cells[C.held].decode(Int.self),
                waitlist: try cells[C.waitlist].decode(Int.self)
            )
        }
    }

    func meetings(of classID: Int64) throws -> [Meeting] {
        try PostgresCatalogStore.classSeats(of: [classID], in: transaction)[classID]?.meetings ?? []
    }

    func allClassIDs() throws -> Set<Int64> {
        try Set(transaction.query("SELECT id FROM registration_classes").map { try $0.decode(Int64.self) })
    }

    func nextClassID() throws -> Int64 {
        try PostgresCatalogStore().nextClassID(in: transaction)
    }

    func insertClass(_ v: ClassRowValues) throws {
        try transaction.execute("""
            INSERT INTO registration_classes (id, term, course_id, schedule_number, section, instructors, meeting_type,
                seats, base_enrolled, base_waitlist, enrolled, waitlist, component, links)
            VALUES (\(v.id), \(v.term), \(v.courseID), \(v.scheduleNumber), \(v.section), \(v.instructors), \(v.meetingType),
                \(v.seats), \(v.baseEnrolled), \(v.baseWaitlist), \(v.enrolled), \(v.waitlist), \(v.component), \(v.links))
            """)
    }

    func updateClass(_ v: ClassRowValues) throws {
        try transaction.execute("""
            UPDATE registration_classes SET term = \(v.term), course_id = \(v.courseID), schedule_number = \(v.scheduleNumber),
                section = \(v.section), instructors = \(v.instructors), meeting_type = \(v.meetingType), seats = \(v.seats),
                base_enrolled = \(v.baseEnrolled), base_waitlist = \(v.baseWaitlist), enrolled = \(v.enrolled), waitlist = \(v.waitlist),
                component = \(v.component), links = \(v.links), revision = revision + 1
            WHERE id = \(v.id)
            """)
    }

    /// A class's meetings in one statement (an import inserts thousands of classes).
    func insertMeetings(_ meetings: [Meeting], classID: Int64) throws {
        guard !meetings.isEmpty else { return }
        var sql = PostgresQuery.StringInterpolation(literalCapacity: 120 + 40 * meetings.count, interpolationCount: 8 * meetings.count)
        sql.appendLiteral("INSERT INTO registration_meetings (class_id, ordinal, days, start_minute, end_minute, building, room, kind) VALUES ")
        for (ordinal, meeting) in meetings.enumerated() {
            sql.appendLiteral(ordinal == 0 ? "(" : ", (")
            sql.appendInterpolation(classID)
            sql.appendLiteral(", ")
            sql.appendInterpolation(ordinal)
            sql.appendLiteral(", ")
            sql.appendInterpolation(Int(meeting.days.rawValue))
            sql.appendLiteral(", ")
            sql.appendInterpolation(meeting.start?.minutes)
            sql.appendLiteral(", ")
            sql.appendInterpolation(meeting.end?.minutes)
            sql.appendLiteral(", ")
            sql.appendInterpolation(meeting.building)
            sql.appendLiteral(", ")
            sql.appendInterpolation(meeting.room)
            sql.appendLiteral(", ")
            sql.appendInterpolation(meeting.kind)
            sql.appendLiteral(")")
        }
        try transaction.execute(PostgresQuery(stringInterpolation: sql))
    }

    func deleteMeetings(classID: Int64) throws {
        try transaction.execute("DELETE FROM registration_meetings WHERE class_id = \(classID)")
    }

    func bumpVersion() throws {
        try PostgresCatalogStore().bumpVersion(in: transaction)
    }
}

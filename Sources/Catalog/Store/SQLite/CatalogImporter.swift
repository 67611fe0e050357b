import Foundation
public import GRDB

/// Ids already looked up during one import (subject codes; subject, number and suffix).
struct ImportMemo {
    var subjects: [String: Int64] = [:]
    var courses: [String: Int64] = [:]
}


/// Applies a ``CatalogDocument`` to the database in one transaction.
///
/// Idempotent: subjects are matched by code, courses by subject and number, classes by id when
/// the row gives one, otherwise by term and schedule number; a matching row is updated (or
/// counted unchanged), never duplicated. Classes absent from the file are left alone. Each row
/// is applied inside its own savepoint, so a row the database refuses is rolled back whole and
/// listed in the report while the others apply. With `strict`, any bad row aborts the import.
///
/// It is the catalog's bulk writer, so it lives with the rest of the Catalog's SQL in `Store/`;
/// parsing and row checks happen before, in `Model/Import`.
public struct CatalogImporter: Sendable {
    /// Called with (what, done, total) as rows are applied.
    public typealias Progress = ImportOptions.Progress

    public let strict: Bool
    public let progress: Progress?
    /// Refuse class rows that match an existing class instead of updating it.
    public var createOnly = false

    public init(strict: Bool = false, progress: Progress? = nil) {
        self.strict = strict
        self.progress = progress
    }

    /// Applies the document inside `db`'s current transaction and returns the report plus the
    /// ids of classes created or whose seats changed (the caller re-applies the waitlist policy
    /// to them and announces the ones that opened).
    public func apply(_ document: CatalogDocument, in db: Database) throws -> (ImportReport, [Int64]) {
        var report = ImportReport()
        report.rejected = document.rejected
        var reseated: [Int64] = []
        let total = document.subjects.count + document.courses.count + document.classes.count
        var done = 0
        func step(_ phase: String) {
            done += 1
            if done % 250 == 0 || done == total { progress?(phase, done, total) }
        }
        var counts = (subjects: ImportReport.Counts(), courses: ImportReport.Counts(), classes: ImportReport.Counts())
        var rejected: [RejectedRow] = []
        var memo = ImportMemo()
        for row in document.subjects {
            if let rejection = attempt(row.label, { try applySubject(row, db: db, counts: &counts.subjects) }) { rejected.append(rejection) }
            step("subjects")
        }
        for row in document.courses {
            if let rejection = attempt(row.label, { try applyCourse(row, db: db, counts: &counts.courses, memo: &memo) }) { rejected.append(rejection) }
            step("courses")
        }
        for row in document.classes {
            let rejection = attempt(row.label) {
                if let id = try applyClass(row, db: db, counts: &counts.classes, memo: &memo) { reseated.append(id) }
            }
            if let rejection { rejected.append(rejection) }
            step("classes")
        }
        report.subjects = counts.subjects
        report.courses = counts.courses
        report.classes = counts.classes
        report.rejected += rejected
        if strict, !report.rejected.isEmpty {
            report.applied = false
            throw StrictImportAborted(report: report)
        }
        if report.subjects.created + report.subjects.updated + report.courses.created + report.courses.updated
            + report.classes.created + report.classes.updated > 0
        {
            try SQLiteCatalogStore().bumpVersion(in: db)
        }
        return (report, reseated)
    }

    /// Runs one row (which applies itself in a savepoint); returns why it was rejected.
    private func attempt(_ label: String, _ body: () throws -> Void) -> RejectedRow? {
        do {
            try body()
            return nil
        } catch let error as RowError {
            return RejectedRow(row: label, reason: error.reason)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            return RejectedRow(row: label, reason: "refused by the database: \(error.message ?? "constraint")")
        } catch {
            return RejectedRow(row: label, reason: "\(error)")
        }
    }

    private func inSavepoint(_ db: Database, _ body: () throws -> Void) throws {
        try db.inSavepoint {
            try body()
            return .commit
        }
    }

    func applySubject(_ row: CatalogDocument.Subject, db: Database, counts: inout ImportReport.Counts) throws {
        try inSavepoint(db) {
            let existing = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT id, title, college FROM registration_subjects WHERE code = ?"), arguments: [row.code]
            )
            if let existing {
                let id: Int64 = existing[0]
                if let wanted = row.id, wanted != id { throw RowError("subject \(row.code) already has id \(id), not \(wanted)") }
                let college: String = row.college ?? existing[2]
                if (existing[1] as String) == row.title, (existing[2] as String) == college {
                    counts.unchanged += 1
                    return
                }
                try db.execute(sql: "UPDATE registration_subjects SET title = ?, college = ? WHERE id = ?", arguments: [row.title, college, id])
                counts.updated += 1
            } else {
                if let wanted = row.id,
                    let other = try String.fetchOne(db, sql: "SELECT code FROM registration_subjects WHERE id = ?", arguments: [wanted])
                {
                    throw RowError("subject id \(wanted) already belongs to \(other)")
                }
                try db.execute(
                    sql: "INSERT INTO registration_subjects (id, code, title, college) VALUES (?, ?, ?, ?)",
                    arguments: [row.id, row.code, row.title, row.college ?? "Unassigned"]
                )
                counts.created += 1
            }
        }
    }

    func applyCourse(_ row: CatalogDocument.Course, db: Database, counts: inout ImportReport.Counts, memo: inout ImportMemo) throws {
        try inSavepoint(db) {
            guard let subjectID = try subjectID(code: row.subjectCode, db: db, memo: &memo) else { throw RowError("unknown subject '\(row.subjectCode)'") }
            let fields: [String] = [row.title, row.fullTitle, row.description, row.prerequisite, row.units]
            if let existing = try Row.fetchOne(
                db.cachedStatement(sql: """
                    SELECT id, title, full_title, description, prerequisite, units FROM registration_courses
                    WHERE subject_id = ? AND number = ? AND suffix = ?
                    """),
                arguments: [subjectID, row.number.number, row.number.suffix]
            ) {
                if (1...5).map({ existing[$0] as String }) == fields {
                    counts.unchanged += 1
                    return
                }
                var arguments = StatementArguments(fields)
                arguments += [existing[0] as Int64]
                try db.cachedStatement(sql: """
                    UPDATE registration_courses SET title = ?, full_title = ?, description = ?, prerequisite = ?, units = ? WHERE id = ?
                    """).execute(arguments: arguments)
                counts.updated += 1
            } else {
                var arguments: StatementArguments = [subjectID, row.number.number, row.number.suffix]
                arguments += StatementArguments(fields)
                try db.cachedStatement(sql: """
                    INSERT INTO registration_courses (subject_id, number, suffix, title, full_title, description, prerequisite, units)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """).execute(arguments: arguments)
                counts.created += 1
            }
        }
    }

    /// Returns the class id when it was created or its seats changed on an update.
    func applyClass(_ row: CatalogDocument.Class, db: Database, counts: inout ImportReport.Counts, memo: inout ImportMemo) throws -> Int64? {
        var reseated: Int64?
        try ClassLimits.check(row)
        try inSavepoint(db) {
            guard let subjectID = try subjectID(code: row.subjectCode, db: db, memo: &memo) else { throw RowError("unknown subject '\(row.subjectCode)'") }
            guard let courseID = try courseID(subjectID: subjectID, number: row.courseNumber, db: db, memo: &memo) else {
                throw RowError("unknown course \(row.subjectCode) \(row.courseNumber)")
            }
            let bySchedule = try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT id FROM registration_classes WHERE term = ? AND schedule_number = ?"),
                arguments: [row.term, row.scheduleNumber]
            )
            if let wanted = row.id, let bySchedule, bySchedule != wanted {
                throw RowError("schedule number \(row.scheduleNumber) in \(row.term) already belongs to class \(bySchedule)")
            }
            let instructors = SQLiteCatalogStore.joinInstructors(row.instructors)
            let links = SQLiteCatalogStore.joinLinks(row.links)
            let existingID = row.id ?? bySchedule
            let existing = try existingID.flatMap { id in
                try Row.fetchOne(
                    db.cachedStatement(sql: """
                        SELECT id, term, course_id, schedule_number, section, instructors, meeting_type, seats, base_enrolled,
                               base_waitlist, enrolled, held, waitlist, component, links FROM registration_classes WHERE id = ?
                        """),
                    arguments: [id]
                )
            }
            if createOnly, let existingID = existing.map({ $0["id"] as Int64 }) {
                throw RowError("class \(existingID) already has schedule number \(row.scheduleNumber) in \(row.term)")
            }
            guard let existing else {
                let newID = try row.id ?? SQLiteCatalogStore().nextClassID(in: db)
                try db.cachedStatement(sql: """
                    INSERT INTO registration_classes (id, term, course_id, schedule_number, section, instructors, meeting_type,
                        seats, base_enrolled, base_waitlist, enrolled, waitlist, component, links)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """).execute(arguments: [
                        newID, row.term, courseID, row.scheduleNumber, row.section, instructors, row.meetingType,
                        row.seats, row.enrolled, row.waitlist, row.enrolled, row.waitlist, row.component, links,
                    ])
                try insertMeetings(row.meetings, classID: newID, db: db)
                counts.created += 1
                reseated = newID
                return
            }
            let id: Int64 = existing[0]
            let local = (existing[10] as Int) - (existing[8] as Int)
            let localWaitlist = (existing[12] as Int) - (existing[9] as Int)
            let held: Int = existing[11]
            if row.enrolled + local + held > row.seats {
                throw RowError("seats (\(row.seats)) would be fewer than the \(row.enrolled) enrolled elsewhere plus \(local + held) enrolled or held through the gateway")
            }
            let meetings = try SQLiteCatalogStore().classSeats(of: [id], in: db)[id]?.meetings ?? []
            let storedText: [String] = [existing[1], existing[3], existing[4], existing[5], existing[6], existing[13], existing[14]]
            let storedCounts: [Int] = [existing[7], existing[8], existing[9]]
            let storedCourse: Int64 = existing[2]
            let same = storedText == [row.term, row.scheduleNumber, row.section, instructors, row.meetingType, row.component, links]
                && storedCounts == [row.seats, row.enrolled, row.waitlist]
                && storedCourse == courseID && meetings == row.meetings
            if same {
                counts.unchanged += 1
                return
            }
            try db.cachedStatement(sql: """
                UPDATE registration_classes SET term = ?, course_id = ?, schedule_number = ?, section = ?, instructors = ?,
                    meeting_type = ?, seats = ?, base_enrolled = ?, base_waitlist = ?, enrolled = ?, waitlist = ?,
                    component = ?, links = ?, revision = revision + 1
                WHERE id = ?
                """).execute(arguments: [
                    row.term, courseID, row.scheduleNumber, row.section, instructors, row.meetingType, row.seats,
                    row.enrolled, row.waitlist, row.enrolled + local, row.waitlist + localWaitlist, row.component, links, id,
                ])
            if meetings != row.meetings {
                try db.execute(sql: "DELETE FROM registration_meetings WHERE class_id = ?", arguments: [id])
                try insertMeetings(row.meetings, classID: id, db: db)
            }
            if (existing[7] as Int) != row.seats || (existing[8] as Int) != row.enrolled { reseated = id }
            counts.updated += 1
        }
        return reseated
    }

    private func insertMeetings(_ meetings: [Meeting], classID: Int64, db: Database) throws {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO registration_meetings (class_id, ordinal, days, start_minute, end_minute, building, room, kind)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for (ordinal, meeting) in meetings.enumerated() {
            try statement.execute(arguments: [
                classID, ordinal, Int(meeting.days.rawValue), meeting.start?.minutes, meeting.end?.minutes,
                meeting.building, meeting.room, meeting.kind,
            ])
        }
    }

    private func subjectID(code: String, db: Database, memo: inout ImportMemo) throws -> Int64? {
        if let id = memo.subjects[code] { return id }
        let id = try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM registration_subjects WHERE code = ?"), arguments: [code])
        if let id { memo.subjects[code] = id }
        return id
    }

    private func courseID(subjectID: Int64, number: CourseNumber, db: Database, memo: inout ImportMemo) throws -> Int64? {
        let key = "\(subjectID) \(number.number) \(number.suffix)"
        if let id = memo.courses[key] { return id }
        let id = try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT id FROM registration_courses WHERE subject_id = ? AND number = ? AND suffix = ?"),
            arguments: [subjectID, number.number, number.suffix]
        )
        if let id { memo.courses[key] = id }
        return id
    }
}

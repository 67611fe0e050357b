import Foundation

/// Ids already looked up during one import (subject codes; subject, number and suffix).
package struct ImportMemo {
    package var subjects: [String: Int64] = [:]
    package var courses: [String: Int64] = [:]
}


/// Applies a ``CatalogDocument`` to the database in one transaction.
///
/// Idempotent: subjects are matched by code, courses by subject and number, classes by id when
/// the row gives one, otherwise by term and schedule number; a matching row is updated (or
/// counted unchanged), never duplicated. Classes absent from the file are left alone. Each row
/// is applied inside its own savepoint, so a row the database refuses is rolled back whole and
/// listed in the report while the others apply. With `strict`, any bad row aborts the import.
///
/// The rules are written once, over ``CatalogImportRows``, which each backend's catalog store
/// answers in its own SQL; parsing and row checks happen before, in `Model/Import`.
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

    /// Applies the document through `db`, inside its transaction, and returns the report plus the
    /// ids of classes created or whose seats changed (the caller re-applies the waitlist policy
    /// to them and announces the ones that opened).
    package func apply(_ document: CatalogDocument, to db: some CatalogImportRows) throws -> (ImportReport, [Int64]) {
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
            if let rejection = attempt(row.label, db: db, { try applySubject(row, db: db, counts: &counts.subjects) }) { rejected.append(rejection) }
            step("subjects")
        }
        for row in document.courses {
            if let rejection = attempt(row.label, db: db, { try applyCourse(row, db: db, counts: &counts.courses, memo: &memo) }) { rejected.append(rejection) }
            step("courses")
        }
        for row in document.classes {
            let rejection = attempt(row.label, db: db) {
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
            try db.bumpVersion()
        }
        return (report, reseated)
    }

    /// Runs one row (which applies itself in a savepoint); returns why it was rejected.
    private func attempt(_ label: String, db: some CatalogImportRows, _ body: () throws -> Void) -> RejectedRow? {
        do {
            try body()
            return nil
        } catch let error as RowError {
            return RejectedRow(row: label, reason: error.reason)
        } catch {
            if let violation = db.constraintViolation(error) { return RejectedRow(row: label, reason: "refused by the database: \(violation)") }
            return RejectedRow(row: label, reason: "\(error)")
        }
    }

    package func applySubject(_ row: CatalogDocument.Subject, db: some CatalogImportRows, counts: inout ImportReport.Counts) throws {
        try db.savepoint {
            if let existing = try db.subject(code: row.code) {
                if let wanted = row.id, wanted != existing.id { throw RowError("subject \(row.code) already has id \(existing.id), not \(wanted)") }
                let college = row.college ?? existing.college
                if existing.title == row.title, existing.college == college {
                    counts.unchanged += 1
                    return
                }
                try db.updateSubject(id: existing.id, title: row.title, college: college)
                counts.updated += 1
            } else {
                if let wanted = row.id, let other = try db.subjectCode(id: wanted) {
                    throw RowError("subject id \(wanted) already belongs to \(other)")
                }
                try db.insertSubject(id: row.id, code: row.code, title: row.title, college: row.college ?? "Unassigned")
                counts.created += 1
            }
        }
    }

    package func applyCourse(_ row: CatalogDocument.Course, db: some CatalogImportRows, counts: inout ImportReport.Counts, memo: inout ImportMemo) throws {
        try db.savepoint {
            guard let subjectID = try subjectID(code: row.subjectCode, db: db, memo: &memo) else { throw RowError("unknown subject '\(row.subjectCode)'") }
            let fields: [String] = [row.title, row.fullTitle, row.description, row.prerequisite, row.units]
            if let existing = try db.course(subjectID: subjectID, number: row.number) {
                if existing.fields == fields {
                    counts.unchanged += 1
                    return
                }
                try db.updateCourse(id: existing.id, fields: fields)
                counts.updated += 1
            } else {
                try db.insertCourse(subjectID: subjectID, number: row.number, fields: fields)
                counts.created += 1
            }
        }
    }

    /// Returns the class id when it was created or its seats changed on an update.
    package func applyClass(_ row: CatalogDocument.Class, db: some CatalogImportRows, counts: inout ImportReport.Counts, memo: inout ImportMemo) throws -> Int64? {
        var reseated: Int64?
        try ClassLimits.check(row)
        try db.savepoint {
            guard let subjectID = try subjectID(code: row.subjectCode, db: db, memo: &memo) else { throw RowError("unknown subject '\(row.subjectCode)'") }
            guard let courseID = try courseID(subjectID: subjectID, number: row.courseNumber, db: db, memo: &memo) else {
                throw RowError("unknown course \(row.subjectCode) \(row.courseNumber)")
            }
            let bySchedule = try db.classID(term: row.term, scheduleNumber: row.scheduleNumber)
            if let wanted = row.id, let bySchedule, bySchedule != wanted {
                throw RowError("schedule number \(row.scheduleNumber) in \(row.term) already belongs to class \(bySchedule)")
            }
            let instructors = CatalogText.joinInstructors(row.instructors)
            let links = CatalogText.joinLinks(row.links)
            let existing = try (row.id ?? bySchedule).flatMap { try db.storedClass(id: $0) }
            if createOnly, let existing {
                throw RowError("class \(existing.id) already has schedule number \(row.scheduleNumber) in \(row.term)")
            }
            guard let existing else {
                let newID = try row.id ?? db.nextClassID()
                try db.insertClass(ClassRowValues(
                    id: newID, term: row.term, courseID: courseID, scheduleNumber: row.scheduleNumber, section: row.section,
                    instructors: instructors, meetingType: row.meetingType, seats: row.seats, baseEnrolled: row.enrolled,
                    baseWaitlist: row.waitlist, enrolled: row.enrolled, waitlist: row.waitlist, component: row.component, links: links
                ))
                try db.insertMeetings(row.meetings, classID: newID)
                counts.created += 1
                reseated = newID
                return
            }
            let id = existing.id
            let local = existing.enrolled - existing.baseEnrolled
            let localWaitlist = existing.waitlist - existing.baseWaitlist
            if row.enrolled + local + existing.held > row.seats {
                throw RowError("seats (\(row.seats)) would be fewer than the \(row.enrolled) enrolled elsewhere plus \(local + existing.held) enrolled or held through the gateway")
            }
            let meetings = try db.meetings(of: id)
            let same = existing.text == [row.term, row.scheduleNumber, row.section, instructors, row.meetingType, row.component, links]
                && [existing.seats, existing.baseEnrolled, existing.baseWaitlist] == [row.seats, row.enrolled, row.waitlist]
                && existing.courseID == courseID && meetings == row.meetings
            if same {
                counts.unchanged += 1
                return
            }
            try db.updateClass(ClassRowValues(
                id: id, term: row.term, courseID: courseID, scheduleNumber: row.scheduleNumber, section: row.section,
                instructors: instructors, meetingType: row.meetingType, seats: row.seats, baseEnrolled: row.enrolled,
                baseWaitlist: row.waitlist, enrolled: row.enrolled + local, waitlist: row.waitlist + localWaitlist,
                component: row.component, links: links
            ))
            if meetings != row.meetings {
                try db.deleteMeetings(classID: id)
                try db.insertMeetings(row.meetings, classID: id)
            }
            if existing.seats != row.seats || existing.baseEnrolled != row.enrolled { reseated = id }
            counts.updated += 1
        }
        return reseated
    }

    private func subjectID(code: String, db: some CatalogImportRows, memo: inout ImportMemo) throws -> Int64? {
        if let id = memo.subjects[code] { return id }
        let id = try db.subject(code: code)?.id
        if let id { memo.subjects[code] = id }
        return id
    }

    private func courseID(subjectID: Int64, number: CourseNumber, db: some CatalogImportRows, memo: inout ImportMemo) throws -> Int64? {
        let key = "\(subjectID) \(number.number) \(number.suffix)"
        if let id = memo.courses[key] { return id }
        let id = try db.course(subjectID: subjectID, number: number)?.id
        if let id { memo.courses[key] = id }
        return id
    }
}

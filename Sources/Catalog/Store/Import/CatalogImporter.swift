import Foundation

/// What one import has read and written so far, so each is asked of the database once:
/// subjects by code; each subject's courses (read once per subject); each term's classes by
/// schedule number (read once per term); every class id; and the next free class id.
package struct ImportMemo {
    package var subjects: [String: Int64] = [:]
    package var courses: [Int64: [CourseNumber: StoredCourse]] = [:]
    package var classes: [String: [String: Int64]] = [:]
    package var classIDs: Set<Int64>?
    package var nextClassID: Int64?
}

/// What an import has done so far: counts, lookups, refusals, classes to re-seat. A chunk that
/// is rolled back is rolled back here too.
struct ImportProgress {
    var subjects = ImportReport.Counts(), courses = ImportReport.Counts(), classes = ImportReport.Counts()
    var memo = ImportMemo()
    var rejected: [RejectedRow] = []
    var reseated: [Int64] = []
    var done = 0
}


/// Applies a ``CatalogDocument`` to the database in one transaction.
///
/// Idempotent: subjects are matched by code, courses by subject and number, classes by id when
/// the row gives one, otherwise by term and schedule number; a matching row is updated (or
/// counted unchanged), never duplicated. Classes absent from the file are left alone. A row the
/// database refuses is rolled back whole and listed in the report while the others apply: rows
/// go in chunks, each in one savepoint, and a chunk that meets a refusal is rolled back and
/// applied again a row at a time, each row in a savepoint of its own (most imports refuse
/// nothing, and a savepoint per row would double their statements). With `strict`, any bad row
/// aborts the import.
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
    /// Rows per savepoint while nothing is refused.
    static let chunkSize = 200

    package func apply(_ document: CatalogDocument, to db: some CatalogImportRows) throws -> (ImportReport, [Int64]) {
        var report = ImportReport()
        report.rejected = document.rejected
        let total = document.subjects.count + document.courses.count + document.classes.count
        var state = ImportProgress()
        applyInChunks(document.subjects, phase: "subjects", total: total, db: db, state: &state, label: \.label) { row, state in
            try applySubject(row, db: db, counts: &state.subjects)
        }
        applyInChunks(document.courses, phase: "courses", total: total, db: db, state: &state, label: \.label) { row, state in
            try applyCourse(row, db: db, counts: &state.courses, memo: &state.memo)
        }
        applyInChunks(document.classes, phase: "classes", total: total, db: db, state: &state, label: \.label) { row, state in
            if let id = try applyClass(row, db: db, counts: &state.classes, memo: &state.memo) { state.reseated.append(id) }
        }
        do {
            try recordTermTitles(of: document, db: db, memo: &state.memo)
        } catch {
            state.rejected.append(RejectedRow(row: "subjects", reason: "the terms' subject titles were not stored: \(error)"))
        }
        report.subjects = state.subjects
        report.courses = state.courses
        report.classes = state.classes
        report.rejected += state.rejected
        if strict, !report.rejected.isEmpty {
            report.applied = false
            throw StrictImportAborted(report: report)
        }
        if report.subjects.created + report.subjects.updated + report.courses.created + report.courses.updated
            + report.classes.created + report.classes.updated > 0
        {
            try db.bumpVersion()
        }
        return (report, state.reseated)
    }

    /// Applies `rows` in chunks of ``chunkSize``, each in one savepoint. A chunk that fails is
    /// rolled back, with what it counted and learned, and applied again a row at a time, each
    /// row in its own savepoint: a refused row is listed and undone whole, the others apply.
    private func applyInChunks<Row>(
        _ rows: [Row], phase: String, total: Int, db: some CatalogImportRows, state: inout ImportProgress, label: (Row) -> String,
        _ body: (Row, inout ImportProgress) throws -> Void
    ) {
        var start = rows.startIndex
        while start < rows.endIndex {
            let chunk = rows[start..<min(start + Self.chunkSize, rows.endIndex)]
            let before = state
            do {
                try db.savepoint { for row in chunk { try body(row, &state) } }
            } catch {
                state = before
                for row in chunk {
                    if let rejection = attempt(label(row), db: db, { try db.savepoint { try body(row, &state) } }) { state.rejected.append(rejection) }
                }
            }
            for _ in chunk {
                state.done += 1
                if state.done % 250 == 0 || state.done == total { progress?(phase, state.done, total) }
            }
            start = chunk.endIndex
        }
    }

    /// Runs one row (in its own savepoint); returns why it was rejected.
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
        if let existing = try db.subject(code: row.code) {
            if let wanted = row.id, wanted != existing.id { throw RowError("subject \(row.code) already has id \(existing.id), not \(wanted)") }
            let college = row.college ?? existing.college
            if existing.title == row.title, existing.college == college {
                counts.unchanged += 1
                return
            }
            // The terms that have this subject's classes keep the title their catalogs gave it:
            // the new title is this document's terms' (``recordTermTitles``).
            try db.keepSubjectName(subjectID: existing.id, TermSubjectName(title: existing.title, college: existing.college))
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

    package func applyCourse(_ row: CatalogDocument.Course, db: some CatalogImportRows, counts: inout ImportReport.Counts, memo: inout ImportMemo) throws {
        guard let subjectID = try subjectID(code: row.subjectCode, db: db, memo: &memo) else { throw RowError("unknown subject '\(row.subjectCode)'") }
        let fields: [String] = [row.title, row.fullTitle, row.description, row.prerequisite, row.units]
        if let existing = try courses(of: subjectID, db: db, memo: &memo)[row.number] {
            if existing.fields == fields {
                counts.unchanged += 1
                return
            }
            try db.updateCourse(id: existing.id, fields: fields)
            memo.courses[subjectID]?[row.number] = StoredCourse(id: existing.id, fields: fields)
            counts.updated += 1
        } else {
            let id = try db.insertCourse(subjectID: subjectID, number: row.number, fields: fields)
            memo.courses[subjectID]?[row.number] = StoredCourse(id: id, fields: fields)
            counts.created += 1
        }
    }

    /// Returns the class id when it was created or its seats changed on an update.
    package func applyClass(_ row: CatalogDocument.Class, db: some CatalogImportRows, counts: inout ImportReport.Counts, memo: inout ImportMemo) throws -> Int64? {
        try ClassLimits.check(row)
        guard let subjectID = try subjectID(code: row.subjectCode, db: db, memo: &memo) else { throw RowError("unknown subject '\(row.subjectCode)'") }
        guard let courseID = try courseID(subjectID: subjectID, number: row.courseNumber, db: db, memo: &memo) else {
            throw RowError("unknown course \(row.subjectCode) \(row.courseNumber)")
        }
        let bySchedule = try classID(term: row.term, scheduleNumber: row.scheduleNumber, db: db, memo: &memo)
        if let wanted = row.id, let bySchedule, bySchedule != wanted {
            throw RowError("schedule number \(row.scheduleNumber) in \(row.term) already belongs to class \(bySchedule)")
        }
        let instructors = CatalogText.joinInstructors(row.instructors)
        let links = CatalogText.joinLinks(row.links)
        if memo.classIDs == nil { memo.classIDs = try db.allClassIDs() }
        let known = memo.classIDs ?? []
        let existing = try (row.id ?? bySchedule).flatMap { known.contains($0) ? try db.storedClass(id: $0) : nil }
        if createOnly, let existing {
            throw RowError("class \(existing.id) already has schedule number \(row.scheduleNumber) in \(row.term)")
        }
        guard let existing else {
            let newID = try row.id ?? newClassID(db: db, memo: &memo)
            try db.insertClass(ClassRowValues(
                id: newID, term: row.term, courseID: courseID, scheduleNumber: row.scheduleNumber, section: row.section,
                instructors: instructors, meetingType: row.meetingType, seats: row.seats, baseEnrolled: row.enrolled,
                baseWaitlist: row.waitlist, enrolled: row.enrolled, waitlist: row.waitlist, component: row.component, links: links
            ))
            try db.insertMeetings(row.meetings, classID: newID)
            memo.classes[row.term, default: [:]][row.scheduleNumber] = newID
            memo.classIDs?.insert(newID)
            if let next = memo.nextClassID, newID >= next { memo.nextClassID = newID + 1 }
            counts.created += 1
            return newID
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
            return nil
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
        memo.classes[existing.text[0]]?[existing.text[1]] = nil
        memo.classes[row.term, default: [:]][row.scheduleNumber] = id
        counts.updated += 1
        return existing.seats != row.seats || existing.baseEnrolled != row.enrolled ? id : nil
    }

    /// The class of `term` with `scheduleNumber`: each term's classes are read once.
    private func classID(term: String, scheduleNumber: String, db: some CatalogImportRows, memo: inout ImportMemo) throws -> Int64? {
        if memo.classes[term] == nil { memo.classes[term] = try db.classIDs(term: term) }
        return memo.classes[term]?[scheduleNumber]
    }

    /// A new class's id: past every class and retired id, read once, then counted up.
    private func newClassID(db: some CatalogImportRows, memo: inout ImportMemo) throws -> Int64 {
        let next = try memo.nextClassID ?? db.nextClassID()
        guard next <= ClassLimits.maximumID else { throw RowError("no class id is left above \(next - 1)") }
        memo.nextClassID = next + 1
        return next
    }

    /// Gives each term of the document's classes the document's titles of their subjects, so a
    /// later import of another term renaming a subject leaves this term's titles alone.
    private func recordTermTitles(of document: CatalogDocument, db: some CatalogImportRows, memo: inout ImportMemo) throws {
        guard !document.subjects.isEmpty, !document.classes.isEmpty else { return }
        let titles = Dictionary(document.subjects.map { ($0.code, $0) }, uniquingKeysWith: { _, last in last })
        var pairs = Set<TermSubject>()
        for row in document.classes where titles[row.subjectCode] != nil {
            pairs.insert(TermSubject(term: row.term, code: row.subjectCode))
        }
        try db.savepoint {
            for pair in pairs.sorted(by: { ($0.term, $0.code) < ($1.term, $1.code) }) {
                guard let id = try subjectID(code: pair.code, db: db, memo: &memo), let row = titles[pair.code],
                      let stored = try db.subject(code: pair.code) else { continue }
                try db.setTermSubjectName(term: pair.term, subjectID: id, TermSubjectName(title: row.title, college: row.college ?? stored.college))
            }
        }
    }

    private struct TermSubject: Hashable {
        let term: String
        let code: String
    }

    private func subjectID(code: String, db: some CatalogImportRows, memo: inout ImportMemo) throws -> Int64? {
        if let id = memo.subjects[code] { return id }
        let id = try db.subject(code: code)?.id
        if let id { memo.subjects[code] = id }
        return id
    }

    private func courseID(subjectID: Int64, number: CourseNumber, db: some CatalogImportRows, memo: inout ImportMemo) throws -> Int64? {
        try courses(of: subjectID, db: db, memo: &memo)[number]?.id
    }

    /// A subject's courses, read once per import.
    private func courses(of subjectID: Int64, db: some CatalogImportRows, memo: inout ImportMemo) throws -> [CourseNumber: StoredCourse] {
        if let courses = memo.courses[subjectID] { return courses }
        let courses = try db.courses(subjectID: subjectID)
        memo.courses[subjectID] = courses
        return courses
    }
}

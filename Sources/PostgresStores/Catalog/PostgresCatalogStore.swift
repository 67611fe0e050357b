import Catalog
import Contracts
import Foundation
import PostgresNIO
import Storage
import PostgresStorage

/// ``CatalogStoring`` on PostgreSQL, each method inside the caller's transaction. Seat
/// counters move by relative updates (`enrolled = enrolled + $1`) whose table checks refuse an
/// over-full class, in the SERIALIZABLE unit that decided to move them.
struct PostgresCatalogStore: CatalogStoring {
    init() {}

    func version(in transaction: any StoreTransaction) throws -> Int64 {
        try transaction.postgres().query("SELECT version FROM registration_catalog_version WHERE id = 1").first?.decode(Int64.self) ?? 0
    }

    func bumpVersion(in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("UPDATE registration_catalog_version SET version = version + 1 WHERE id = 1")
    }

    func classCount(in transaction: any StoreTransaction) throws -> Int {
        try transaction.postgres().query("SELECT COUNT(*) FROM registration_classes").first?.decode(Int.self) ?? 0
    }

    func classExists(_ id: Int64, in transaction: any StoreTransaction) throws -> Bool {
        try !transaction.postgres().query("SELECT 1 FROM registration_classes WHERE id = \(id)").isEmpty
    }

    func classID(term: String, scheduleNumber: String, in transaction: any StoreTransaction) throws -> Int64? {
        try transaction.postgres().query("SELECT id FROM registration_classes WHERE term = \(term) AND schedule_number = \(scheduleNumber)")
            .first?.decode(Int64.self)
    }

    func nextClassID(in transaction: any StoreTransaction) throws -> Int64 {
        let highest = try transaction.postgres().query("""
            SELECT GREATEST((SELECT MAX(id) FROM registration_classes), (SELECT MAX(id) FROM registration_retired_class_ids))
            """).first?.decode(Int64?.self)
        let (next, overflow) = (highest ?? 0).addingReportingOverflow(1)
        guard !overflow, next <= ClassLimits.maximumID else { throw RowError("no class id is left above \(highest ?? 0)") }
        return next
    }

    func deleteClass(_ id: Int64, at now: Date, in transaction: any StoreTransaction) throws {
        let transaction = try transaction.postgres()
        try transaction.execute("DELETE FROM registration_meetings WHERE class_id = \(id)")
        try transaction.execute("DELETE FROM registration_classes WHERE id = \(id)")
        try transaction.execute("""
            INSERT INTO registration_retired_class_ids (id, retired_at) VALUES (\(id), \(now))
            ON CONFLICT (id) DO UPDATE SET retired_at = excluded.retired_at
            """)
    }

    /// Positions in ``loadIndex(in:)``'s class query past the eight columns decoded as a tuple
    /// (`c.id` … `c.links`): the seat counters, then the course's columns.
    enum IndexColumn {
        static let seats = 8, enrolled = 9, held = 10, waitlist = 11, revision = 12
        static let subjectID = 13, number = 14, suffix = 15, title = 16, fullTitle = 17, description = 18, prerequisite = 19, units = 20
        static let status = 21
    }

    func loadIndex(in transaction: any StoreTransaction) throws -> (CatalogIndex, [SeatCount]) {
        let transaction = try transaction.postgres()
        let version = try self.version(in: transaction)
        var subjects: [Int64: CatalogSubject] = [:]
        for row in try transaction.query("SELECT id, code, title, college FROM registration_subjects") {
            let (id, code, title, college) = try row.decode((Int64, String, String, String).self)
            subjects[id] = CatalogSubject(id: id, code: code, title: title, college: college)
        }
        var termNames: [String: [Int64: TermSubjectName]] = [:]
        for row in try transaction.query("SELECT term, subject_id, title, college FROM catalog_term_subjects") {
            let (term, subjectID, title, college) = try row.decode((String, Int64, String, String).self)
            termNames[term, default: [:]][subjectID] = TermSubjectName(title: title, college: college)
        }
        var meetings: [Int64: [Meeting]] = [:]
        for row in try transaction.query(
            "SELECT class_id, days, start_minute, end_minute, building, room, kind FROM registration_meetings ORDER BY class_id, ordinal"
        ) {
            let (classID, meeting) = try Self.meeting(row)
            meetings[classID, default: []].append(meeting)
        }
        var classes: [CatalogClass] = []
        var seats: [Int64: SeatCount] = [:]
        for row in try transaction.query("""
            SELECT c.id, c.term, c.schedule_number, c.section, c.instructors, c.meeting_type, c.component, c.links,
                   c.seats, c.enrolled, c.held, c.waitlist, c.revision,
                   co.subject_id, co.number, co.suffix, co.title, co.full_title, co.description, co.prerequisite, co.units, c.status
            FROM registration_classes c JOIN registration_courses co ON co.id = c.course_id
            """) {
            let (id, term, scheduleNumber, section, instructors, meetingType, component, links) =
                try row.decode((Int64, String, String, String, String, String, String, String).self)
            let cells = row.makeRandomAccess()
            typealias C = IndexColumn
            let subjectID = try cells[C.subjectID].decode(Int64.self)
            let subject = subjects[subjectID]
            classes.append(CatalogClass(
                id: id, term: term, subjectID: subjectID, subjectCode: subject?.code ?? "",
                department: termNames[term]?[subjectID]?.title ?? subject?.title ?? "",
                college: termNames[term]?[subjectID]?.college ?? subject?.college ?? "",
                courseNumber: CourseNumber(number: try cells[C.number].decode(Int.self), suffix: try cells[C.suffix].decode(String.self)),
                title: try cells[C.title].decode(String.self), fullTitle: try cells[C.fullTitle].decode(String.self),
                description: try cells[C.description].decode(String.self), prerequisite: try cells[C.prerequisite].decode(String.self),
                units: try cells[C.units].decode(String.self), section: section, scheduleNumber: scheduleNumber,
                instructors: CatalogText.splitInstructors(instructors), meetingType: meetingType, meetings: meetings[id] ?? [],
                component: component, links: CatalogText.splitLinks(links)
            ))
            seats[id] = SeatCount(
                seats: try cells[C.seats].decode(Int.self), enrolled: try cells[C.enrolled].decode(Int.self),
                held: try cells[C.held].decode(Int.self), waitlist: try cells[C.waitlist].decode(Int.self),
                revision: try cells[C.revision].decode(Int64.self),
                status: SectionStatus(rawValue: try cells[C.status].decode(Int.self)) ?? .closed
            )
        }
        let index = CatalogIndex(version: version, subjects: Array(subjects.values), classes: classes, termNames: termNames)
        return (index, index.classes.map { seats[$0.id]! })
    }

    /// A meeting from a row of (class_id, days, start_minute, end_minute, building, room, kind).
    static func meeting(_ row: PostgresRow) throws -> (Int64, Meeting) {
        let (classID, days, start, end, building, room, kind) = try row.decode((Int64, Int, Int?, Int?, String, String, String).self)
        return (classID, Meeting(
            days: Weekdays(rawValue: UInt8(clamping: days)), start: start.flatMap(TimeOfDay.init(minutes:)),
            end: end.flatMap(TimeOfDay.init(minutes:)), building: building, room: room, kind: kind
        ))
    }

    func seatCounts(of ids: some Collection<Int64>, in transaction: any StoreTransaction) throws -> [Int64: SeatCount] {
        let ids = Array(ids)
        guard !ids.isEmpty else { return [:] }
        var result: [Int64: SeatCount] = [:]
        for row in try transaction.postgres().query(
            "SELECT id, seats, enrolled, held, waitlist, revision, status FROM registration_classes WHERE id = ANY(\(ids))"
        ) {
            let (id, seats, enrolled, held, waitlist, revision, status) = try row.decode((Int64, Int, Int, Int, Int, Int64, Int).self)
            result[id] = SeatCount(
                seats: seats, enrolled: enrolled, held: held, waitlist: waitlist, revision: revision,
                status: SectionStatus(rawValue: status) ?? .closed
            )
        }
        return result
    }

    func classSeats(of ids: some Collection<Int64>, in transaction: any StoreTransaction) throws -> [Int64: ClassSeats] {
        try Self.classSeats(of: Array(ids), in: transaction.postgres())
    }

    static func classSeats(of ids: [Int64], in transaction: PostgresTransaction) throws -> [Int64: ClassSeats] {
        guard !ids.isEmpty else { return [:] }
        var result: [Int64: ClassSeats] = [:]
        for row in try transaction.query("""
            SELECT c.id, c.term, c.seats, c.enrolled, c.held, c.status, t.seats_from
            FROM registration_classes c LEFT JOIN catalog_terms t ON t.id = c.term WHERE c.id = ANY(\(ids))
            """) {
            let (id, term, seats, enrolled, held, status, seatsFrom) = try row.decode((Int64, String, Int, Int, Int, Int, String?).self)
            result[id] = ClassSeats(
                id: id, term: term, meetings: [], seats: seats, enrolled: enrolled, held: held,
                seatsAtRegistrar: seatsFrom == Term.SeatsSource.registrar.rawValue, status: SectionStatus(rawValue: status) ?? .closed
            )
        }
        for row in try transaction.query("""
            SELECT class_id, days, start_minute, end_minute, building, room, kind FROM registration_meetings
            WHERE class_id = ANY(\(ids)) ORDER BY class_id, ordinal
            """) {
            let (classID, meeting) = try meeting(row)
            result[classID]?.meetings.append(meeting)
        }
        return result
    }

    func labels(of ids: some Collection<Int64>, in transaction: any StoreTransaction) throws -> [Int64: ClassLabel] {
        let ids = Array(ids)
        guard !ids.isEmpty else { return [:] }
        var labels: [Int64: ClassLabel] = [:]
        for row in try transaction.postgres().query("""
            SELECT c.id, c.term, s.code, co.number, co.suffix, c.section, co.title
            FROM registration_classes c
            JOIN registration_courses co ON co.id = c.course_id
            JOIN registration_subjects s ON s.id = co.subject_id
            WHERE c.id = ANY(\(ids))
            """) {
            let (id, term, subject, number, suffix, section, title) = try row.decode((Int64, String, String, Int, String, String, String).self)
            labels[id] = ClassLabel(
                classId: id, term: term, subject: subject, courseNumber: CourseNumber(number: number, suffix: suffix).description,
                section: section, title: title
            )
        }
        return labels
    }

    func classIDs(term: String, in transaction: any StoreTransaction) throws -> [String: Int64] {
        var ids: [String: Int64] = [:]
        for row in try transaction.postgres().query("SELECT schedule_number, id FROM registration_classes WHERE term = \(term)") {
            let (number, id) = try row.decode((String, Int64).self)
            ids[number] = id
        }
        return ids
    }

    func mirrorSeats(classID: Int64, seats: Int, enrolled: Int, waitlist: Int, status: SectionStatus, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("""
            UPDATE registration_classes
            SET seats = \(seats), base_enrolled = 0, enrolled = \(enrolled), base_waitlist = 0, waitlist = \(waitlist),
                status = \(status.rawValue), revision = revision + 1
            WHERE id = \(classID)
            """)
    }

    func setSeats(classID: Int64, seats: Int, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("UPDATE registration_classes SET seats = \(seats), revision = revision + 1 WHERE id = \(classID)")
    }

    func lockClasses(_ ids: [Int64], in transaction: any StoreTransaction) throws {
        guard !ids.isEmpty else { return }
        try transaction.postgres().query("SELECT id FROM registration_classes WHERE id = ANY(\(ids.sorted())) ORDER BY id FOR NO KEY UPDATE")
    }

    func adjustSeats(classID: Int64, enrolled: Int, held: Int, waitlist: Int, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("""
            UPDATE registration_classes
            SET enrolled = enrolled + \(enrolled), held = held + \(held), waitlist = waitlist + \(waitlist), revision = revision + 1
            WHERE id = \(classID)
            """)
    }

    func apply(_ document: CatalogDocument, options: ImportOptions, in transaction: any StoreTransaction) throws -> (ImportReport, [Int64]) {
        var importer = CatalogImporter(strict: options.strict, progress: options.progress)
        importer.createOnly = options.createOnly
        return try importer.apply(document, to: PostgresImportRows(transaction: transaction.postgres()))
    }
}

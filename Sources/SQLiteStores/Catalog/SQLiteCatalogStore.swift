import Catalog
import Contracts
import Foundation
import GRDB
import Storage
import SQLiteStorage

/// ``CatalogStoring`` on SQLite: the catalog's SQL, each method inside the caller's transaction.
/// Every value is a bound parameter.
struct SQLiteCatalogStore: CatalogStoring {
    init() {}

    /// The catalog version, bumped by every catalog change.
    func version(in transaction: any StoreTransaction) throws -> Int64 {
        let db = try transaction.sqlite()
        return try Int64.fetchOne(db.cachedStatement(sql: "SELECT version FROM registration_catalog_version WHERE id = 1")) ?? 0
    }

    func bumpVersion(in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.cachedStatement(sql: "UPDATE registration_catalog_version SET version = version + 1 WHERE id = 1").execute()
    }

    /// How many classes the catalog holds.
    func classCount(in transaction: any StoreTransaction) throws -> Int {
        let db = try transaction.sqlite()
        return try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM registration_classes")) ?? 0
    }

    func classExists(_ id: Int64, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        return try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM registration_classes WHERE id = ?)"), arguments: [id]) ?? false
    }

    func classID(term: String, scheduleNumber: String, in transaction: any StoreTransaction) throws -> Int64? {
        let db = try transaction.sqlite()
        return try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT id FROM registration_classes WHERE term = ? AND schedule_number = ?"),
            arguments: [term, scheduleNumber]
        )
    }

    func classIDs(term: String, in transaction: any StoreTransaction) throws -> [String: Int64] {
        let db = try transaction.sqlite()
        var ids: [String: Int64] = [:]
        let rows = try Row.fetchCursor(db.cachedStatement(sql: "SELECT schedule_number, id FROM registration_classes WHERE term = ?"), arguments: [term])
        while let row = try rows.next() { ids[row[0]] = row[1] }
        return ids
    }

    func mirrorSeats(classID: Int64, seats: Int, enrolled: Int, waitlist: Int, status: SectionStatus, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.cachedStatement(sql: """
            UPDATE registration_classes
            SET seats = ?, base_enrolled = 0, enrolled = ?, base_waitlist = 0, waitlist = ?, status = ?, revision = revision + 1
            WHERE id = ?
            """).execute(arguments: [seats, enrolled, waitlist, status.rawValue, classID])
    }

    /// The id for a new class given none: above every class id in use or ever deleted.
    func nextClassID(in transaction: any StoreTransaction) throws -> Int64 {
        let db = try transaction.sqlite()
        let highest = try Int64.fetchOne(db.cachedStatement(sql: """
            SELECT MAX(id) FROM (SELECT MAX(id) AS id FROM registration_classes
                                 UNION ALL SELECT MAX(id) FROM registration_retired_class_ids)
            """))
        let (next, overflow) = (highest ?? 0).addingReportingOverflow(1)
        guard !overflow, next <= ClassLimits.maximumID else { throw RowError("no class id is left above \(highest ?? 0)") }
        return next
    }

    /// Deletes a class with its meetings and retires its id. Rows of other modules that point
    /// at the class go with it (their foreign keys cascade); a module that keeps history of
    /// the class removes it first, in the same transaction.
    func deleteClass(_ id: Int64, at now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(sql: "DELETE FROM registration_meetings WHERE class_id = ?", arguments: [id])
        try db.execute(sql: "DELETE FROM registration_classes WHERE id = ?", arguments: [id])
        try db.execute(sql: "INSERT OR REPLACE INTO registration_retired_class_ids (id, retired_at) VALUES (?, ?)", arguments: [id, now])
    }

    /// Reads the whole catalog (one read transaction gives a consistent snapshot).
    func loadIndex(in transaction: any StoreTransaction) throws -> (CatalogIndex, [SeatCount]) {
        let db = try transaction.sqlite()
        let version = try self.version(in: db)
        var subjects: [Int64: CatalogSubject] = [:]
        for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT id, code, title, college FROM registration_subjects")) {
            let subject = CatalogSubject(id: row["id"], code: row["code"], title: row["title"], college: row["college"])
            subjects[subject.id] = subject
        }
        let termNames = try Self.termSubjectNames(in: db)
        var meetings: [Int64: [Meeting]] = [:]
        let meetingRows = try Row.fetchCursor(
            db,
            sql: "SELECT class_id, days, start_minute, end_minute, building, room, kind FROM registration_meetings ORDER BY class_id, ordinal"
        )
        while let row = try meetingRows.next() {
            meetings[row["class_id"], default: []].append(Self.meeting(from: row))
        }
        var classes: [CatalogClass] = []
        var seats: [Int64: SeatCount] = [:]
        let rows = try Row.fetchCursor(db, sql: """
            SELECT c.id, c.term, c.schedule_number, c.section, c.instructors, c.meeting_type, c.component, c.links,
                   c.seats, c.enrolled, c.held, c.waitlist, c.revision, c.status,
                   co.subject_id, co.number, co.suffix, co.title, co.full_title, co.description, co.prerequisite, co.units
            FROM registration_classes c JOIN registration_courses co ON co.id = c.course_id
            """)
        while let row = try rows.next() {
            let id: Int64 = row["id"]
            let subjectID: Int64 = row["subject_id"]
            let subject = subjects[subjectID]
            let term: String = row["term"]
            classes.append(CatalogClass(
                id: id, term: term, subjectID: subjectID, subjectCode: subject?.code ?? "",
                department: termNames[term]?[subjectID]?.title ?? subject?.title ?? "",
                college: termNames[term]?[subjectID]?.college ?? subject?.college ?? "",
                courseNumber: CourseNumber(number: row["number"], suffix: row["suffix"]), title: row["title"],
                fullTitle: row["full_title"], description: row["description"], prerequisite: row["prerequisite"],
                units: row["units"], section: row["section"], scheduleNumber: row["schedule_number"],
                instructors: CatalogText.splitInstructors(row["instructors"]), meetingType: row["meeting_type"], meetings: meetings[id] ?? [],
                component: row["component"], links: CatalogText.splitLinks(row["links"])
            ))
            seats[id] = Self.seatCount(from: row)
        }
        let index = CatalogIndex(version: version, subjects: Array(subjects.values), classes: classes, termNames: termNames)
        return (index, index.classes.map { seats[$0.id]! })
    }

    /// Each term's subject titles and colleges (term, subject id).
    static func termSubjectNames(in db: Database) throws -> [String: [Int64: TermSubjectName]] {
        var names: [String: [Int64: TermSubjectName]] = [:]
        for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT term, subject_id, title, college FROM catalog_term_subjects")) {
            names[row["term"], default: [:]][row["subject_id"]] = TermSubjectName(title: row["title"], college: row["college"])
        }
        return names
    }

    /// Seat numbers of some classes, read inside the caller's transaction.
    func seatCounts(of ids: some Collection<Int64>, in transaction: any StoreTransaction) throws -> [Int64: SeatCount] {
        try Self.seatCounts(of: Array(ids), in: transaction.sqlite())
    }

    /// What the enrollment rules need about some classes: term, meetings and seats.
    func classSeats(of ids: some Collection<Int64>, in transaction: any StoreTransaction) throws -> [Int64: ClassSeats] {
        try Self.classSeats(of: Array(ids), in: transaction.sqlite())
    }

    // The two reads every registration makes (the use case's checks and the batch's counts):
    // not generic (the protocol's generic requirement would run them unspecialised), rows
    // read from a cursor (no copies) by column position (a name is looked up case-insensitively
    // on every access).

    /// Column positions of the seat queries below, read by index on the request path (a
    /// lookup by name lowercases each name on every row).
    enum SeatCountColumn { static let id = 0, seats = 1, enrolled = 2, held = 3, waitlist = 4, revision = 5, status = 6 }
    enum ClassSeatsColumn { static let id = 0, term = 1, seats = 2, enrolled = 3, held = 4, status = 5, seatsFrom = 6 }
    enum MeetingColumn { static let classID = 0, days = 1, startMinute = 2, endMinute = 3, building = 4, room = 5, kind = 6 }

    static func seatCounts(of ids: [Int64], in db: Database) throws -> [Int64: SeatCount] {
        guard !ids.isEmpty else { return [:] }
        var result: [Int64: SeatCount] = [:]
        result.reserveCapacity(ids.count)
        let rows = try Row.fetchCursor(
            db.cachedStatement(sql: "SELECT id, seats, enrolled, held, waitlist, revision, status FROM registration_classes WHERE id IN (\(placeholders(ids.count)))"),
            arguments: StatementArguments(ids)
        )
        while let row = try rows.next() {
            typealias C = SeatCountColumn
            result[row[C.id]] = SeatCount(
                seats: row[C.seats], enrolled: row[C.enrolled], held: row[C.held], waitlist: row[C.waitlist], revision: row[C.revision],
                status: SectionStatus(rawValue: row[C.status]) ?? .closed
            )
        }
        return result
    }

    static func classSeats(of ids: [Int64], in db: Database) throws -> [Int64: ClassSeats] {
        guard !ids.isEmpty else { return [:] }
        var result: [Int64: ClassSeats] = [:]
        result.reserveCapacity(ids.count)
        let arguments = StatementArguments(ids)
        let classes = try Row.fetchCursor(
            db.cachedStatement(sql: """
                SELECT c.id, c.term, c.seats, c.enrolled, c.held, c.status, t.seats_from
                FROM registration_classes c LEFT JOIN catalog_terms t ON t.id = c.term WHERE c.id IN (\(placeholders(ids.count)))
                """),
            arguments: arguments
        )
        while let row = try classes.next() {
            typealias C = ClassSeatsColumn
            let id: Int64 = row[C.id]
            result[id] = ClassSeats(
                id: id, term: row[C.term], meetings: [], seats: row[C.seats], enrolled: row[C.enrolled], held: row[C.held],
                seatsAtRegistrar: (row[C.seatsFrom] as String?) == Term.SeatsSource.registrar.rawValue,
                status: SectionStatus(rawValue: row[C.status]) ?? .closed
            )
        }
        let meetings = try Row.fetchCursor(
            db.cachedStatement(sql: """
                SELECT class_id, days, start_minute, end_minute, building, room, kind FROM registration_meetings
                WHERE class_id IN (\(placeholders(ids.count))) ORDER BY class_id, ordinal
                """),
            arguments: arguments
        )
        while let row = try meetings.next() {
            typealias C = MeetingColumn
            let id: Int64 = row[C.classID]
            let start = (row[C.startMinute] as Int?).flatMap(TimeOfDay.init(minutes:))
            let end = (row[C.endMinute] as Int?).flatMap(TimeOfDay.init(minutes:))
            result[id]?.meetings.append(
                Meeting(days: Weekdays(rawValue: UInt8(clamping: row[C.days] as Int)), start: start, end: end, building: row[C.building], room: row[C.room], kind: row[C.kind])
            )
        }
        return result
    }

    /// Changes a class's seat count. Lowering it below enrolled plus held seats fails the
    /// table's CHECK.
    func setSeats(classID: Int64, seats: Int, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.cachedStatement(sql: "UPDATE registration_classes SET seats = ?, revision = revision + 1 WHERE id = ?")
            .execute(arguments: [seats, classID])
    }

    /// A meeting from a row with the meeting table's column names.
    static func meeting(from row: Row) -> Meeting {
        let days = Weekdays(rawValue: UInt8(clamping: row["days"] as Int))
        let start = (row["start_minute"] as Int?).flatMap(TimeOfDay.init(minutes:))
        let end = (row["end_minute"] as Int?).flatMap(TimeOfDay.init(minutes:))
        return Meeting(days: days, start: start, end: end, building: row["building"], room: row["room"], kind: row["kind"])
    }

    /// Seat numbers from a row with the class table's column names.
    static func seatCount(from row: Row) -> SeatCount {
        SeatCount(
            seats: row["seats"], enrolled: row["enrolled"], held: row["held"], waitlist: row["waitlist"], revision: row["revision"],
            status: SectionStatus(rawValue: row["status"]) ?? .closed
        )
    }

    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ",")
    }

    // MARK: Seat counters (the ledger Registration moves in its transactions)

    /// The one writer holds the whole database already.
    func lockClasses(_ ids: [Int64], in transaction: any StoreTransaction) throws {}

    func adjustSeats(classID: Int64, enrolled: Int, held: Int, waitlist: Int, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.cachedStatement(sql: """
            UPDATE registration_classes
            SET enrolled = enrolled + ?, held = held + ?, waitlist = waitlist + ?, revision = revision + 1
            WHERE id = ?
            """).execute(arguments: [enrolled, held, waitlist, classID])
    }

    // MARK: Imports

    func apply(_ document: CatalogDocument, options: ImportOptions, in transaction: any StoreTransaction) throws -> (ImportReport, [Int64]) {
        var importer = CatalogImporter(strict: options.strict, progress: options.progress)
        importer.createOnly = options.createOnly
        return try importer.apply(document, to: SQLiteImportRows(db: transaction.sqlite()))
    }
}

import Contracts
import Foundation
import PostgresNIO
import Registration
import Storage
import PostgresStorage

/// ``EligibilityStoring`` on PostgreSQL, kept as on SQLite (``EligibilityText``). What the
/// rules read comes in one statement, `registration_eligibility_facts` (migration
/// `registration.pg.004.eligibility`).
struct PostgresEligibilityStore: EligibilityStoring {
    init() {}

    /// A hold or an override as the facts function writes it (dates as epoch seconds).
    struct StoredHold: Decodable {
        var id: Int64, code: String, reason: String, blocks: String, until: Double?, createdBy: Int64, createdAt: Double
    }
    struct StoredOverride: Decodable {
        var id: Int64, classId: Int64, rules: String, createdBy: Int64, createdAt: Double
    }

    func facts(accountID: Int64, term: String, courses: [String], in transaction: any StoreTransaction) throws -> EligibilityFacts {
        guard let row = try transaction.postgres().query("""
            SELECT \(unescaped: Self.factsColumns)
            FROM registration_eligibility_facts(\(accountID), \(term), \(Self.courseKeys(courses))::text[])
            """).first
        else { return EligibilityFacts() }
        return try Self.facts(row.decode(FactsColumns.self))
    }

    /// The columns of `registration_eligibility_facts`, in the order of ``FactsColumns``.
    static let factsColumns = "record, holds, windows, max_units, time_zone, requirements, overrides, refuse_duplicate_courses"
    typealias FactsColumns = (String?, String?, String?, Double?, String?, String?, String?, Bool?)

    /// The requirement keys of `courses`, as the facts function takes them.
    static func courseKeys(_ courses: [String]) -> [String] {
        Array(Set(courses.map(CourseLabelKey.normalized))).sorted()
    }

    /// The facts those columns hold (all nil: a student the registrar knows nothing about).
    static func facts(_ columns: FactsColumns) throws -> EligibilityFacts {
        let (record, holds, windows, maxUnits, timeZone, requirements, overrides, duplicates) = columns
        let decoder = JSONDecoder()
        return EligibilityFacts(
            record: try record.map { try EligibilityText.decode(AcademicRecord.self, $0) },
            holds: try holds.map { text in
                try decoder.decode([StoredHold].self, from: Data(text.utf8)).map { hold in
                    RegistrationHold(
                        id: hold.id, code: hold.code, reason: hold.reason, blocks: EligibilityText.actions(hold.blocks),
                        until: hold.until.map(Date.init(timeIntervalSince1970:)), createdBy: hold.createdBy,
                        createdAt: Date(timeIntervalSince1970: hold.createdAt)
                    )
                }
            } ?? [],
            windows: try windows.map { try EligibilityText.decode([RegistrationWindow].self, $0) } ?? [],
            termMaxUnits: maxUnits, termTimeZone: timeZone, refusesDuplicateCourses: duplicates ?? false,
            requirements: try requirements.map { try EligibilityText.decode([String: CourseRequirements].self, $0) } ?? [:],
            overrides: try overrides.map { text in
                try decoder.decode([StoredOverride].self, from: Data(text.utf8)).map { stored in
                    RegistrationOverride(
                        id: stored.id, classId: stored.classId, rules: EligibilityText.rules(stored.rules), createdBy: stored.createdBy,
                        createdAt: Date(timeIntervalSince1970: stored.createdAt)
                    )
                }
            } ?? []
        )
    }

    func record(of accountID: Int64, in transaction: any StoreTransaction) throws -> Recorded<AcademicRecord>? {
        guard let row = try transaction.postgres().query("""
            SELECT record, updated_by, updated_at FROM registration_academic_records WHERE account_id = \(accountID)
            """).first else { return nil }
        let (record, by, at) = try row.decode((String, Int64, Date).self)
        return Recorded(try EligibilityText.decode(AcademicRecord.self, record), change: EligibilityChange(by: by, at: at))
    }

    func putRecord(_ record: AcademicRecord, of accountID: Int64, change: EligibilityChange, in transaction: any StoreTransaction) throws {
        let text = try EligibilityText.encode(record)
        try transaction.postgres().execute("""
            INSERT INTO registration_academic_records (account_id, record, updated_by, updated_at) VALUES (\(accountID), \(text), \(change.by), \(change.at))
            ON CONFLICT (account_id) DO UPDATE SET record = excluded.record, updated_by = excluded.updated_by, updated_at = excluded.updated_at
            """)
    }

    func holds(of accountID: Int64, in transaction: any StoreTransaction) throws -> [RegistrationHold] {
        try transaction.postgres().query("""
            SELECT id, code, reason, blocks, until, created_by, created_at FROM registration_holds WHERE account_id = \(accountID) ORDER BY id
            """).map { row in
            let (id, code, reason, blocks, until, by, at) = try row.decode((Int64, String, String, String, Date?, Int64, Date).self)
            return RegistrationHold(id: id, code: code, reason: reason, blocks: EligibilityText.actions(blocks), until: until, createdBy: by, createdAt: at)
        }
    }

    func placeHold(_ hold: RegistrationHold, on accountID: Int64, change: EligibilityChange, in transaction: any StoreTransaction) throws -> Int64 {
        let blocks = EligibilityText.actions(hold.blocks)
        return try transaction.postgres().query("""
            INSERT INTO registration_holds (account_id, code, reason, blocks, until, created_by, created_at)
            VALUES (\(accountID), \(hold.code), \(hold.reason), \(blocks), \(hold.until), \(change.by), \(change.at)) RETURNING id
            """).first?.decode(Int64.self) ?? 0
    }

    func liftHold(id: Int64, of accountID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().execute("DELETE FROM registration_holds WHERE id = \(id) AND account_id = \(accountID)") > 0
    }

    func windows(of term: String, in transaction: any StoreTransaction) throws -> Recorded<[RegistrationWindow]>? {
        guard let row = try transaction.postgres().query("""
            SELECT windows, updated_by, updated_at FROM registration_term_windows WHERE term = \(term)
            """).first else { return nil }
        let (windows, by, at) = try row.decode((String, Int64, Date).self)
        return Recorded(try EligibilityText.decode([RegistrationWindow].self, windows), change: EligibilityChange(by: by, at: at))
    }

    func putWindows(_ windows: [RegistrationWindow], of term: String, change: EligibilityChange, in transaction: any StoreTransaction) throws {
        let text = try EligibilityText.encode(windows)
        try transaction.postgres().execute("""
            INSERT INTO registration_term_windows (term, windows, updated_by, updated_at) VALUES (\(term), \(text), \(change.by), \(change.at))
            ON CONFLICT (term) DO UPDATE SET windows = excluded.windows, updated_by = excluded.updated_by, updated_at = excluded.updated_at
            """)
    }

    func requirements(of course: String, in term: String, in transaction: any StoreTransaction) throws -> Recorded<CourseRequirements>? {
        let key = CourseLabelKey.normalized(course)
        guard let row = try transaction.postgres().query("""
            SELECT requirements, updated_by, updated_at FROM registration_course_requirements WHERE term = \(term) AND course = \(key)
            """).first else { return nil }
        let (requirements, by, at) = try row.decode((String, Int64, Date).self)
        return Recorded(try EligibilityText.decode(CourseRequirements.self, requirements), change: EligibilityChange(by: by, at: at))
    }

    func putRequirements(
        _ requirements: CourseRequirements, of course: String, in term: String, change: EligibilityChange, in transaction: any StoreTransaction
    ) throws {
        let key = CourseLabelKey.normalized(course), text = try EligibilityText.encode(requirements)
        try transaction.postgres().execute("""
            INSERT INTO registration_course_requirements (term, course, requirements, updated_by, updated_at)
            VALUES (\(term), \(key), \(text), \(change.by), \(change.at))
            ON CONFLICT (term, course) DO UPDATE SET requirements = excluded.requirements, updated_by = excluded.updated_by,
                updated_at = excluded.updated_at
            """)
    }

    func overrides(of accountID: Int64, in transaction: any StoreTransaction) throws -> [RegistrationOverride] {
        try transaction.postgres().query("""
            SELECT id, class_id, rules, created_by, created_at FROM registration_overrides WHERE account_id = \(accountID) ORDER BY id
            """).map { row in
            let (id, classID, rules, by, at) = try row.decode((Int64, Int64, String, Int64, Date).self)
            return RegistrationOverride(id: id, classId: classID, rules: EligibilityText.rules(rules), createdBy: by, createdAt: at)
        }
    }

    func grantOverride(classID: Int64, rules: [OverridableRule], to accountID: Int64, change: EligibilityChange, in transaction: any StoreTransaction) throws -> Int64 {
        let text = EligibilityText.rules(rules)
        return try transaction.postgres().query("""
            INSERT INTO registration_overrides (account_id, class_id, rules, created_by, created_at)
            VALUES (\(accountID), \(classID), \(text), \(change.by), \(change.at)) RETURNING id
            """).first?.decode(Int64.self) ?? 0
    }

    func removeOverride(id: Int64, of accountID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().execute("DELETE FROM registration_overrides WHERE id = \(id) AND account_id = \(accountID)") > 0
    }

    func updatePrerequisiteExceptions(
        of accountID: Int64, adding: [PrerequisiteException], clearing: [Int64], in transaction: any StoreTransaction
    ) throws -> [PrerequisiteException] {
        let transaction = try transaction.postgres()
        if !clearing.isEmpty {
            try transaction.execute("""
                DELETE FROM registration_prerequisite_exceptions WHERE account_id = \(accountID) AND class_id = ANY (\(clearing)::bigint[])
                """)
        }
        var added: [PrerequisiteException] = []
        for exception in adding {
            let missing = try EligibilityText.encode(exception.missing)
            let inserted = try transaction.execute("""
                INSERT INTO registration_prerequisite_exceptions (account_id, class_id, term, course, missing, detected_at)
                VALUES (\(accountID), \(exception.classId), \(exception.term), \(exception.course), \(missing), \(exception.detectedAt))
                ON CONFLICT (account_id, class_id) DO NOTHING
                """)
            if inserted > 0 { added.append(exception) }
        }
        return added
    }

    func prerequisiteExceptions(term: String, limit: Int, in transaction: any StoreTransaction) throws -> [PrerequisiteException] {
        try transaction.postgres().query("""
            SELECT account_id, class_id, term, course, missing, detected_at FROM registration_prerequisite_exceptions
            WHERE term = \(term) ORDER BY account_id, class_id LIMIT \(limit)
            """).map { row in
            let (accountID, classID, term, course, missing, detectedAt) = try row.decode((Int64, Int64, String, String, String, Date).self)
            return PrerequisiteException(
                accountId: accountID, classId: classID, term: term, course: course,
                missing: try EligibilityText.decode(Requisite.self, missing), detectedAt: detectedAt
            )
        }
    }
}

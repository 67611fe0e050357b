import Catalog
import Contracts
import Foundation
import GRDB
import Registration
import Storage
import SQLiteStorage

/// ``EligibilityStoring`` on SQLite: records, windows and requirements as JSON text
/// (``EligibilityText``), holds and overrides a row each. The term's unit limit and time zone
/// are read through the Catalog's term store in the same transaction.
struct SQLiteEligibilityStore: EligibilityStoring {
    init() {}

    func facts(accountID: Int64, term: String, courses: [String], in transaction: any StoreTransaction) throws -> EligibilityFacts {
        let db = try transaction.sqlite()
        var facts = EligibilityFacts()
        facts.record = try record(of: accountID, in: transaction)?.value
        facts.holds = try holds(of: accountID, in: transaction)
        facts.windows = try windows(of: term, in: transaction)?.value ?? []
        if let stored = try SQLiteTermStore().term(id: term, in: transaction) {
            facts.termMaxUnits = stored.maxUnits
            facts.termTimeZone = stored.timeZone
            facts.refusesDuplicateCourses = stored.refuseDuplicateCourses
        }
        for course in Set(courses.map(CourseLabelKey.normalized)).sorted() {
            let text = try String.fetchOne(
                db.cachedStatement(sql: "SELECT requirements FROM registration_course_requirements WHERE term = ? AND course = ?"),
                arguments: [term, course]
            )
            if let text { facts.requirements[course] = try EligibilityText.decode(CourseRequirements.self, text) }
        }
        facts.overrides = try overrides(of: accountID, in: transaction)
        return facts
    }

    func record(of accountID: Int64, in transaction: any StoreTransaction) throws -> Recorded<AcademicRecord>? {
        let db = try transaction.sqlite()
        guard let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT record, updated_by, updated_at FROM registration_academic_records WHERE account_id = ?"),
            arguments: [accountID]
        ) else { return nil }
        return Recorded(try EligibilityText.decode(AcademicRecord.self, row["record"]), change: EligibilityChange(by: row["updated_by"], at: row["updated_at"]))
    }

    func putRecord(_ record: AcademicRecord, of accountID: Int64, change: EligibilityChange, in transaction: any StoreTransaction) throws {
        try transaction.sqlite().cachedStatement(sql: """
            INSERT INTO registration_academic_records (account_id, record, updated_by, updated_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (account_id) DO UPDATE SET record = excluded.record, updated_by = excluded.updated_by, updated_at = excluded.updated_at
            """).execute(arguments: [accountID, try EligibilityText.encode(record), change.by, change.at])
    }

    func holds(of accountID: Int64, in transaction: any StoreTransaction) throws -> [RegistrationHold] {
        try Row.fetchAll(
            transaction.sqlite().cachedStatement(sql: """
                SELECT id, code, reason, blocks, until, created_by, created_at FROM registration_holds WHERE account_id = ? ORDER BY id
                """),
            arguments: [accountID]
        ).map { row in
            RegistrationHold(
                id: row["id"], code: row["code"], reason: row["reason"], blocks: EligibilityText.actions(row["blocks"] as String),
                until: row["until"], createdBy: row["created_by"], createdAt: row["created_at"]
            )
        }
    }

    func placeHold(_ hold: RegistrationHold, on accountID: Int64, change: EligibilityChange, in transaction: any StoreTransaction) throws -> Int64 {
        let db = try transaction.sqlite()
        try db.cachedStatement(sql: """
            INSERT INTO registration_holds (account_id, code, reason, blocks, until, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [accountID, hold.code, hold.reason, EligibilityText.actions(hold.blocks), hold.until, change.by, change.at])
        return db.lastInsertedRowID
    }

    func liftHold(id: Int64, of accountID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.cachedStatement(sql: "DELETE FROM registration_holds WHERE id = ? AND account_id = ?").execute(arguments: [id, accountID])
        return db.changesCount > 0
    }

    func windows(of term: String, in transaction: any StoreTransaction) throws -> Recorded<[RegistrationWindow]>? {
        guard let row = try Row.fetchOne(
            transaction.sqlite().cachedStatement(sql: "SELECT windows, updated_by, updated_at FROM registration_term_windows WHERE term = ?"),
            arguments: [term]
        ) else { return nil }
        return Recorded(try EligibilityText.decode([RegistrationWindow].self, row["windows"]), change: EligibilityChange(by: row["updated_by"], at: row["updated_at"]))
    }

    func putWindows(_ windows: [RegistrationWindow], of term: String, change: EligibilityChange, in transaction: any StoreTransaction) throws {
        try transaction.sqlite().cachedStatement(sql: """
            INSERT INTO registration_term_windows (term, windows, updated_by, updated_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (term) DO UPDATE SET windows = excluded.windows, updated_by = excluded.updated_by, updated_at = excluded.updated_at
            """).execute(arguments: [term, try EligibilityText.encode(windows), change.by, change.at])
    }

    func requirements(of course: String, in term: String, in transaction: any StoreTransaction) throws -> Recorded<CourseRequirements>? {
        guard let row = try Row.fetchOne(
            transaction.sqlite().cachedStatement(sql: """
                SELECT requirements, updated_by, updated_at FROM registration_course_requirements WHERE term = ? AND course = ?
                """),
            arguments: [term, CourseLabelKey.normalized(course)]
        ) else { return nil }
        return Recorded(
            try EligibilityText.decode(CourseRequirements.self, row["requirements"]), change: EligibilityChange(by: row["updated_by"], at: row["updated_at"])
        )
    }

    func putRequirements(
        _ requirements: CourseRequirements, of course: String, in term: String, change: EligibilityChange, in transaction: any StoreTransaction
    ) throws {
        let db = try transaction.sqlite()
        try db.cachedStatement(sql: """
            INSERT INTO registration_course_requirements (term, course, requirements, updated_by, updated_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (term, course) DO UPDATE SET requirements = excluded.requirements, updated_by = excluded.updated_by,
                updated_at = excluded.updated_at
            """).execute(arguments: [term, CourseLabelKey.normalized(course), try EligibilityText.encode(requirements), change.by, change.at])
    }

    func overrides(of accountID: Int64, in transaction: any StoreTransaction) throws -> [RegistrationOverride] {
        try Row.fetchAll(
            transaction.sqlite().cachedStatement(sql: """
                SELECT id, class_id, rules, created_by, created_at FROM registration_overrides WHERE account_id = ? ORDER BY id
                """),
            arguments: [accountID]
        ).map { row in
            RegistrationOverride(
                id: row["id"], classId: row["class_id"], rules: EligibilityText.rules(row["rules"] as String), createdBy: row["created_by"],
                createdAt: row["created_at"]
            )
        }
    }

    func grantOverride(classID: Int64, rules: [OverridableRule], to accountID: Int64, change: EligibilityChange, in transaction: any StoreTransaction) throws -> Int64 {
        let db = try transaction.sqlite()
        try db.cachedStatement(sql: """
            INSERT INTO registration_overrides (account_id, class_id, rules, created_by, created_at) VALUES (?, ?, ?, ?, ?)
            """).execute(arguments: [accountID, classID, EligibilityText.rules(rules), change.by, change.at])
        return db.lastInsertedRowID
    }

    func removeOverride(id: Int64, of accountID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.cachedStatement(sql: "DELETE FROM registration_overrides WHERE id = ? AND account_id = ?").execute(arguments: [id, accountID])
        return db.changesCount > 0
    }

    func updatePrerequisiteExceptions(
        of accountID: Int64, adding: [PrerequisiteException], clearing: [Int64], in transaction: any StoreTransaction
    ) throws -> [PrerequisiteException] {
        let db = try transaction.sqlite()
        for classID in clearing {
            try db.cachedStatement(sql: "DELETE FROM registration_prerequisite_exceptions WHERE account_id = ? AND class_id = ?")
                .execute(arguments: [accountID, classID])
        }
        var added: [PrerequisiteException] = []
        for exception in adding {
            try db.cachedStatement(sql: """
                INSERT INTO registration_prerequisite_exceptions (account_id, class_id, term, course, missing, detected_at)
                VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (account_id, class_id) DO NOTHING
                """).execute(arguments: [
                    accountID, exception.classId, exception.term, exception.course, try EligibilityText.encode(exception.missing), exception.detectedAt,
                ])
            if db.changesCount > 0 { added.append(exception) }
        }
        return added
    }

    func prerequisiteExceptions(term: String, limit: Int, in transaction: any StoreTransaction) throws -> [PrerequisiteException] {
        try Row.fetchAll(
            transaction.sqlite().cachedStatement(sql: """
                SELECT account_id, class_id, term, course, missing, detected_at FROM registration_prerequisite_exceptions
                WHERE term = ? ORDER BY account_id, class_id LIMIT ?
                """),
            arguments: [term, limit]
        ).map { row in
            PrerequisiteException(
                accountId: row["account_id"], classId: row["class_id"], term: row["term"], course: row["course"],
                missing: try EligibilityText.decode(Requisite.self, row["missing"]), detectedAt: row["detected_at"]
            )
        }
    }
}

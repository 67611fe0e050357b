import Catalog
import Contracts
public import Foundation
import Jobs
import GatewayCore
import Storage

/// The registrar's side of eligibility (records, holds, windows, requirements, overrides, each
/// change recorded with who made it) and the student's: what they may register for, asked
/// without registering (`check`), and what stands between them and registering (`status`).
public struct EligibilityService: RegistrationUseCase {
    let environment: RegistrationEnvironment

    // MARK: Records

    public func record(of accountID: Int64) async throws -> Recorded<AcademicRecord>? {
        let stores = self.stores
        return try await transactions.read { db in try stores.eligibility.record(of: accountID, in: db) }
    }

    /// Puts the student's record. A grade that posts and leaves an enrolled class's
    /// prerequisite unmet (it was met in progress) is a prerequisite exception: the student is
    /// told once, and the registrar sees it listed; the enrollment stays.
    public func putRecord(_ record: AcademicRecord, of accountID: Int64, by adminID: Int64) async throws {
        try EligibilityLimits.check(record)
        // Courses are kept as the rules compare them (`CS 310`), so reading them costs nothing.
        var normalized = record
        for index in normalized.history.indices { normalized.history[index].course = CourseLabelKey.normalized(normalized.history[index].course) }
        let record = normalized
        let stores = self.stores, accounts = self.accounts, snapshot = catalog.cachedSnapshot(), now = clock.now()
        try await transactions.write { db in
            guard try accounts.account(id: accountID, in: db) != nil else { throw RegistrationError.unknownAccount(accountID) }
            let before = try stores.eligibility.record(of: accountID, in: db)?.value
            try stores.eligibility.putRecord(record, of: accountID, change: EligibilityChange(by: adminID, at: now), in: db)
            var adding: [PrerequisiteException] = [], clearing: [Int64] = []
            for enrollment in try stores.enrollments.enrollments(of: accountID, in: db) {
                guard let info = snapshot.listing(id: enrollment.classID)?.info,
                    let prerequisites = try stores.eligibility.requirements(of: info.courseLabel, in: info.term, in: db)?.value.prerequisites
                else { continue }
                let overridden = try stores.eligibility.overrides(of: accountID, in: db)
                    .contains { $0.classId == enrollment.classID && $0.rules.contains(.prerequisite) }
                let unmetNow = prerequisites.unmet { record.grades(in: $0) }
                let unmetBefore = prerequisites.unmet { before?.grades(in: $0) ?? [] }
                if let missing = unmetNow, unmetBefore == nil, !overridden {
                    adding.append(PrerequisiteException(
                        accountId: accountID, classId: enrollment.classID, term: info.term, course: info.courseLabel, missing: missing, detectedAt: now
                    ))
                } else if unmetNow == nil {
                    clearing.append(enrollment.classID)
                }
            }
            for exception in try stores.eligibility.updatePrerequisiteExceptions(of: accountID, adding: adding, clearing: clearing, in: db) {
                try stores.jobs.enqueue(
                    NewJob(
                        PushJobs.prerequisiteUnmet,
                        .init(
                            accountId: accountID, classId: exception.classId,
                            message: "Your grade leaves the prerequisite of \(exception.course) unmet: it requires \(exception.missing.sentence). You are still enrolled; the registrar will decide."
                        ),
                        uniqueKey: "\(PushJobs.prerequisiteUnmet.name):\(accountID):\(exception.classId)"
                    ),
                    in: db, now: now
                )
            }
        }
    }

    public func prerequisiteExceptions(term: String, limit: Int = 1_000) async throws -> [PrerequisiteException] {
        let stores = self.stores
        return try await transactions.read { db in try stores.eligibility.prerequisiteExceptions(term: term, limit: limit, in: db) }
    }

    // MARK: Holds

    public func holds(of accountID: Int64) async throws -> [RegistrationHold] {
        let stores = self.stores
        return try await transactions.read { db in try stores.eligibility.holds(of: accountID, in: db) }
    }

    /// Places a hold; the stored hold, with its id.
    public func placeHold(_ hold: RegistrationHold, on accountID: Int64, by adminID: Int64) async throws -> RegistrationHold {
        try EligibilityLimits.check(hold)
        let stores = self.stores, accounts = self.accounts, now = clock.now()
        return try await transactions.write { db in
            guard try accounts.account(id: accountID, in: db) != nil else { throw RegistrationError.unknownAccount(accountID) }
            guard try stores.eligibility.holds(of: accountID, in: db).count < EligibilityLimits.holdsPerStudent else {
                throw RegistrationError.eligibilityLimit("a student has at most \(EligibilityLimits.holdsPerStudent) holds")
            }
            var stored = hold
            stored.id = try stores.eligibility.placeHold(hold, on: accountID, change: EligibilityChange(by: adminID, at: now), in: db)
            stored.createdBy = adminID
            stored.createdAt = now
            return stored
        }
    }

    /// Lifts a hold; false when the student has none with this id.
    public func liftHold(id: Int64, of accountID: Int64) async throws -> Bool {
        let stores = self.stores
        return try await transactions.write { db in try stores.eligibility.liftHold(id: id, of: accountID, in: db) }
    }

    // MARK: Windows

    public func windows(of term: String) async throws -> Recorded<[RegistrationWindow]>? {
        let stores = self.stores
        return try await transactions.read { db in
            guard try stores.terms.term(id: term, in: db) != nil else { throw RegistrationError.termNotFound(term) }
            return try stores.eligibility.windows(of: term, in: db)
        }
    }

    public func putWindows(_ windows: [RegistrationWindow], of term: String, by adminID: Int64) async throws {
        try EligibilityLimits.check(windows)
        let stores = self.stores, now = clock.now()
        try await transactions.write { db in
            guard try stores.terms.term(id: term, in: db) != nil else { throw RegistrationError.termNotFound(term) }
            try stores.eligibility.putWindows(windows, of: term, change: EligibilityChange(by: adminID, at: now), in: db)
        }
    }

    // MARK: Requirements

    public func requirements(of course: String, in term: String) async throws -> Recorded<CourseRequirements>? {
        let stores = self.stores
        return try await transactions.read { db in try stores.eligibility.requirements(of: course, in: term, in: db) }
    }

    public func putRequirements(_ requirements: CourseRequirements, of course: String, in term: String, by adminID: Int64) async throws {
        try EligibilityLimits.check(requirements, course: course)
        let stores = self.stores, now = clock.now()
        try await transactions.write { db in
            guard try stores.terms.term(id: term, in: db) != nil else { throw RegistrationError.termNotFound(term) }
            try stores.eligibility.putRequirements(requirements, of: course, in: term, change: EligibilityChange(by: adminID, at: now), in: db)
        }
    }

    // MARK: Overrides

    public func overrides(of accountID: Int64) async throws -> [RegistrationOverride] {
        let stores = self.stores
        return try await transactions.read { db in try stores.eligibility.overrides(of: accountID, in: db) }
    }

    public func grantOverride(classID: Int64, rules: [OverridableRule], to accountID: Int64, by adminID: Int64) async throws -> RegistrationOverride {
        guard !rules.isEmpty else { throw RegistrationError.eligibilityLimit("an override lets the student past at least one rule") }
        let stores = self.stores, accounts = self.accounts, now = clock.now()
        let unique = OverridableRule.allCases.filter(rules.contains)
        return try await transactions.write { db in
            guard try accounts.account(id: accountID, in: db) != nil else { throw RegistrationError.unknownAccount(accountID) }
            guard try stores.catalog.classSeats(of: [classID], in: db)[classID] != nil else { throw RegistrationError.unknownClass(classID) }
            guard try stores.eligibility.overrides(of: accountID, in: db).count < EligibilityLimits.overridesPerStudent else {
                throw RegistrationError.eligibilityLimit("a student has at most \(EligibilityLimits.overridesPerStudent) overrides")
            }
            let id = try stores.eligibility.grantOverride(classID: classID, rules: unique, to: accountID, change: EligibilityChange(by: adminID, at: now), in: db)
            return RegistrationOverride(id: id, classId: classID, rules: unique, createdBy: adminID, createdAt: now)
        }
    }

    public func removeOverride(id: Int64, of accountID: Int64) async throws -> Bool {
        let stores = self.stores
        return try await transactions.write { db in try stores.eligibility.removeOverride(id: id, of: accountID, in: db) }
    }
}

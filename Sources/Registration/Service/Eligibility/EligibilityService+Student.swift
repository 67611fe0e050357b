import Catalog
public import Foundation
import GatewayCore
import Storage

/// What the dry run says of one class.
public struct EligibilityAnswer: Sendable, Equatable {
    public enum Status: String, Sendable {
        case eligible, ineligible, enrolled
        case notFound = "not-found"
        /// The class's term registers at the campus registrar.
        case atRegistrar = "at-registrar"
    }

    public var classID: Int64
    public var status: Status
    public var reasons: [IneligibleReason]
    public var timeZone: TimeZone
}

/// What stands between a student and registering in a term: their holds, their window, what
/// the registrar knows of them, their units against the limit, and their overrides.
public struct EligibilityStatus: Sendable, Equatable {
    public var term: String
    public var record: AcademicRecord?
    /// Holds in force now.
    public var holds: [RegistrationHold]
    /// Whether the term has windows at all (none: open to everyone).
    public var windowsDefined: Bool
    /// The window that applies to the student (nil with windows defined: none does).
    public var window: RegistrationWindow?
    public var windowOpen: Bool
    public var unitsRegistered: Double
    public var unitLimit: Double?
    public var overrides: [RegistrationOverride]
    public var timeZone: TimeZone
}

extension EligibilityService {
    /// Whether the student may register for each class, with every reason when not: changes
    /// nothing, sends nothing and holds no seat.
    public func check(studentID: Int64, classIDs: [Int64]) async throws -> [EligibilityAnswer] {
        let stores = self.stores, judge = self.judge, now = clock.now()
        return try await transactions.read { db in
            let enrolledIDs = try stores.enrollments.enrollments(of: studentID, in: db).map(\.classID)
            let offered = Set(try stores.enrollments.openOffers(of: studentID, in: db).map(\.classID))
            let seats = try stores.catalog.classSeats(of: Array(Set(classIDs + enrolledIDs)), in: db)
            let enrolled = enrolledIDs.compactMap { seats[$0] }
            return try classIDs.map { classID in
                let utc = TimeZone(identifier: "UTC")!
                guard let target = seats[classID] else { return EligibilityAnswer(classID: classID, status: .notFound, reasons: [], timeZone: utc) }
                if target.seatsAtRegistrar { return EligibilityAnswer(classID: classID, status: .atRegistrar, reasons: [], timeZone: utc) }
                if enrolledIDs.contains(classID) { return EligibilityAnswer(classID: classID, status: .enrolled, reasons: [], timeZone: utc) }
                let verdict = try judge.add(studentID: studentID, target: target, enrolled: enrolled, hasOffer: offered.contains(classID), now: now, in: db)
                return EligibilityAnswer(
                    classID: classID, status: verdict.reasons.isEmpty ? .eligible : .ineligible, reasons: verdict.reasons, timeZone: verdict.facts.timeZone
                )
            }
        }
    }

    /// The student's eligibility in `term`.
    public func status(studentID: Int64, term: String) async throws -> EligibilityStatus {
        let stores = self.stores, snapshot = catalog.cachedSnapshot(), now = clock.now()
        return try await transactions.read { db in
            guard try stores.terms.term(id: term, in: db) != nil else { throw RegistrationError.termNotFound(term) }
            let facts = try stores.eligibility.facts(accountID: studentID, term: term, courses: [], in: db)
            let enrolledIDs = try stores.enrollments.enrollments(of: studentID, in: db).map(\.classID)
            let units = enrolledIDs.compactMap { snapshot.listing(id: $0)?.info }.filter { $0.term == term }
                .reduce(0) { $0 + EligibilityJudge.units($1.units) }
            let window = RegistrationWindow.applying(to: studentID, standing: facts.record?.standing, among: facts.windows)
            return EligibilityStatus(
                term: term, record: facts.record, holds: facts.holds.filter { $0.blocks(.add, at: now) || $0.blocks(.drop, at: now) },
                windowsDefined: !facts.windows.isEmpty, window: window,
                windowOpen: facts.windows.isEmpty || window?.isOpen(at: now) == true, unitsRegistered: units,
                unitLimit: facts.record?.maxUnits ?? facts.termMaxUnits, overrides: facts.overrides, timeZone: facts.timeZone
            )
        }
    }

    /// Of `classIDs`, those the student may not take for what they are (the rules a waitlist
    /// join checks: holds, window, prerequisites, restrictions), each with its rules; what
    /// depends on their schedule or the seats is left out, as a builder plans a new schedule.
    public func ineligibleClasses(studentID: Int64, among classIDs: [Int64]) async throws -> [Int64: [String]] {
        let stores = self.stores, judge = self.judge, now = clock.now()
        return try await transactions.read { db in
            let seats = try stores.catalog.classSeats(of: Array(Set(classIDs)), in: db)
            var refused: [Int64: [String]] = [:]
            for (classID, target) in seats {
                let verdict = try judge.add(studentID: studentID, target: target, enrolled: [], hasOffer: false, kind: .joinLine, now: now, in: db)
                if !verdict.reasons.isEmpty { refused[classID] = verdict.reasons.map(\.rule) }
            }
            return refused
        }
    }
}

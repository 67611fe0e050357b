public import Contracts
public import Foundation
import Synchronization

/// What the registrar holds about who may register (docs/registration.md, "Eligibility"):
/// academic records, holds, a term's windows, course requirements and overrides, each with who
/// set it and when. Every method runs inside the caller's transaction; the drivers are
/// `SQLiteEligibilityStore` and `PostgresEligibilityStore`, and one suite runs on both.
public protocol EligibilityStoring: Sendable {
    /// What the rules read for `accountID` in `term`, with the requirements of `courses`: one
    /// statement on PostgreSQL. The term's unit limit and time zone come with it.
    func facts(accountID: Int64, term: String, courses: [String], in transaction: any StoreTransaction) throws -> EligibilityFacts

    func record(of accountID: Int64, in transaction: any StoreTransaction) throws -> Recorded<AcademicRecord>?
    func putRecord(_ record: AcademicRecord, of accountID: Int64, change: EligibilityChange, in transaction: any StoreTransaction) throws

    /// The student's holds, lifted ones gone, expired ones kept (they no longer block).
    func holds(of accountID: Int64, in transaction: any StoreTransaction) throws -> [RegistrationHold]
    /// Places a hold; its new id.
    func placeHold(_ hold: RegistrationHold, on accountID: Int64, change: EligibilityChange, in transaction: any StoreTransaction) throws -> Int64
    /// Lifts a hold of this student; false when they have none with this id.
    func liftHold(id: Int64, of accountID: Int64, in transaction: any StoreTransaction) throws -> Bool

    func windows(of term: String, in transaction: any StoreTransaction) throws -> Recorded<[RegistrationWindow]>?
    /// Replaces the term's windows (none: the term is open to all).
    func putWindows(_ windows: [RegistrationWindow], of term: String, change: EligibilityChange, in transaction: any StoreTransaction) throws

    func requirements(of course: String, in term: String, in transaction: any StoreTransaction) throws -> Recorded<CourseRequirements>?
    /// Sets a course's requirements in a term; `.none` removes them.
    func putRequirements(_ requirements: CourseRequirements, of course: String, in term: String, change: EligibilityChange, in transaction: any StoreTransaction) throws

    func overrides(of accountID: Int64, in transaction: any StoreTransaction) throws -> [RegistrationOverride]
    /// Grants an override; its new id.
    func grantOverride(classID: Int64, rules: [OverridableRule], to accountID: Int64, change: EligibilityChange, in transaction: any StoreTransaction) throws -> Int64
    /// Removes an override of this student; false when they have none with this id.
    func removeOverride(id: Int64, of accountID: Int64, in transaction: any StoreTransaction) throws -> Bool

    /// Records `adding` among the student's prerequisite exceptions (one already there keeps
    /// when it was found) and clears those of `clearing` (classes whose prerequisite is met
    /// again); returns the ones that are new.
    func updatePrerequisiteExceptions(
        of accountID: Int64, adding: [PrerequisiteException], clearing: [Int64], in transaction: any StoreTransaction
    ) throws -> [PrerequisiteException]
    /// A term's prerequisite exceptions, by student and class; at most `limit`.
    func prerequisiteExceptions(term: String, limit: Int, in transaction: any StoreTransaction) throws -> [PrerequisiteException]
}

/// How eligibility values are kept on every backend: JSON text in the API's own shape, so a row
/// reads back as it was put and both drivers share one encoding.
package enum EligibilityText {
    package static func encode<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// The value a stored text holds. Every registration reads its student's record and its
    /// term's windows and requirements, which change seldom: each text is decoded once and the
    /// value kept (at most ``cacheLimit`` texts; past that the cache starts over), so a
    /// registration pays a string comparison, not a JSON parse.
    package static func decode<T: Decodable & Sendable>(_ type: T.Type, _ text: String) throws -> T {
        let key = Key(type: ObjectIdentifier(type), text: text)
        if let cached = cache.withLock({ $0[key] }) as? T { return cached }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let value = try decoder.decode(type, from: Data(text.utf8))
        cache.withLock { entries in
            if entries.count >= cacheLimit { entries.removeAll(keepingCapacity: true) }
            entries[key] = value
        }
        return value
    }

    struct Key: Hashable {
        let type: ObjectIdentifier
        let text: String
    }

    static let cacheLimit = 20_000
    static let cache = Mutex<[Key: any Sendable]>([:])

    /// A hold's `blocks` as stored: `add,drop`.
    package static func actions(_ blocks: [HoldAction]) -> String { blocks.map(\.rawValue).joined(separator: ",") }
    package static func actions(_ text: String) -> [HoldAction] { text.split(separator: ",").compactMap { HoldAction(rawValue: String($0)) } }
    package static func rules(_ rules: [OverridableRule]) -> String { rules.map(\.rawValue).joined(separator: ",") }
    package static func rules(_ text: String) -> [OverridableRule] { text.split(separator: ",").compactMap { OverridableRule(rawValue: String($0)) } }
}

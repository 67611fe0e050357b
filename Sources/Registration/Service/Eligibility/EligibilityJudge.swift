import Catalog
import Contracts
import Foundation
import Storage

/// The eligibility rules (``EligibilityRules``) applied inside the transaction of the use case
/// that asks: it reads the student's facts (one statement on PostgreSQL), sees each class as
/// the in-memory catalog describes it (course, units, meetings) and turns the reasons into the
/// refusal the routes answer. Registration, waitlists, offers, swaps, drops and promotion all
/// ask it; none has rules of its own beyond "already enrolled" and the registrar's terms.
struct EligibilityJudge: Sendable {
    let stores: RegistrationStores
    let catalog: CatalogService
    let classLimit: Int

    /// What the rules decided about an add: the reasons and the facts they read.
    struct Verdict: Sendable {
        var reasons: [IneligibleReason]
        var facts: EligibilityFacts

        var refusal: RegistrationError? { EligibilityJudge.refusal(reasons, facts: facts) }
    }

    /// Which rules an add checks.
    enum AddKind: Sendable {
        /// Registering, claiming an offer, a swap's add, promotion: every rule.
        case enroll
        /// Joining a waitlist: what the student is (holds, window, prerequisites,
        /// restrictions); what depends on their schedule (conflicts, units, limits, duplicates,
        /// corequisites) is checked when a seat comes to them.
        case joinLine

        static let scheduleRules: Set<String> = ["time-conflict", "class-limit", "max-units", "duplicate-course", "corequisite", "class-full"]
    }

    /// Every reason `studentID` may not add `target`, given the classes they are enrolled in
    /// (any term; the class itself and `dropping` are left out). `hasOffer`: a seat is held
    /// for them.
    func add(
        studentID: Int64, target: ClassSeats, enrolled: [ClassSeats], dropping: Int64? = nil, hasOffer: Bool, kind: AddKind = .enroll,
        now: Date, in db: any StoreTransaction
    ) throws -> Verdict {
        let facts = try stores.eligibility.facts(accountID: studentID, term: target.term, courses: [course(of: target.id)], in: db)
        return add(studentID: studentID, target: target, enrolled: enrolled, dropping: dropping, hasOffer: hasOffer, kind: kind, now: now, facts: facts)
    }

    /// The course whose requirements an add of `classID` reads: ask for its facts with it.
    func course(of classID: Int64) -> String {
        catalog.cachedSnapshot().listing(id: classID)?.info.courseLabel ?? ""
    }

    /// ``add(studentID:target:enrolled:dropping:hasOffer:kind:now:in:)`` on facts already read
    /// (with the requirements of ``course(of:)``): the rules alone, no I/O.
    func add(
        studentID: Int64, target: ClassSeats, enrolled: [ClassSeats], dropping: Int64? = nil, hasOffer: Bool, kind: AddKind = .enroll,
        now: Date, facts: EligibilityFacts
    ) -> Verdict {
        let snapshot = catalog.cachedSnapshot()
        let targetClass = Self.eligibilityClass(target, snapshot)
        let kept = enrolled.filter { $0.id != target.id && $0.id != dropping && $0.term == target.term }.map { Self.eligibilityClass($0, snapshot) }
        let overrides = facts.overrides(for: target.id)
        // A seat: open to newcomers, held for this student, or (with a `closed` override) a
        // seat in a section the registrar closed that still has room. Never past the size.
        let room = target.seats - target.enrolled - target.held > 0 && target.status != .cancelled
        let hasSeat = kind == .joinLine || hasOffer || target.openSeats > 0 || (overrides.contains(.closed) && room)
        let input = EligibilityRules.Addition(
            studentID: studentID, record: facts.record, holds: facts.holds, windows: facts.windows, termMaxUnits: facts.termMaxUnits,
            enrolled: kept, target: targetClass, requirements: facts.requirements(of: targetClass.course), overrides: overrides,
            classLimit: classLimit, hasSeat: hasSeat, now: now, refusesDuplicateCourses: facts.refusesDuplicateCourses
        )
        var reasons = EligibilityRules.add(input)
        if kind == .joinLine { reasons.removeAll { AddKind.scheduleRules.contains($0.rule) } }
        return Verdict(reasons: reasons, facts: facts)
    }

    /// Every reason `studentID` may not drop `dropping` while keeping `kept` (their classes of
    /// its term; in a swap, with the added class): a hold on drops, or a corequisite of a kept
    /// class that only `dropping` met.
    func drop(studentID: Int64, dropping: ClassSeats, kept: [ClassSeats], now: Date, in db: any StoreTransaction) throws -> RegistrationError? {
        let facts = try stores.eligibility.facts(
            accountID: studentID, term: dropping.term, courses: keptCourses(dropping: dropping, kept: kept), in: db
        )
        return drop(studentID: studentID, dropping: dropping, kept: kept, now: now, facts: facts)
    }

    /// The courses whose requirements a drop reads: ask for its facts with them.
    func keptCourses(dropping: ClassSeats, kept: [ClassSeats]) -> [String] {
        let snapshot = catalog.cachedSnapshot()
        return kept.filter { $0.term == dropping.term && $0.id != dropping.id }.map { Self.eligibilityClass($0, snapshot).course }
    }

    /// ``drop(studentID:dropping:kept:now:in:)`` on facts already read (with the requirements
    /// of ``keptCourses(dropping:kept:)``): the rules alone, no I/O.
    func drop(studentID: Int64, dropping: ClassSeats, kept: [ClassSeats], now: Date, facts: EligibilityFacts) -> RegistrationError? {
        let snapshot = catalog.cachedSnapshot()
        let droppingClass = Self.eligibilityClass(dropping, snapshot)
        let keptClasses = kept.filter { $0.term == dropping.term && $0.id != dropping.id }.map { Self.eligibilityClass($0, snapshot) }
        let reasons = EligibilityRules.drop(
            droppingClass, kept: keptClasses, record: facts.record, holds: facts.holds, now: now,
            requirements: facts.requirements(of:), overrides: facts.overrides(for:)
        )
        return Self.refusal(reasons, facts: facts)
    }

    /// The refusal for `reasons`: none when empty; the problem the gateway always answered
    /// when the only reason is a full class, the class limit or a time conflict; otherwise
    /// every reason at once.
    static func refusal(_ reasons: [IneligibleReason], facts: EligibilityFacts) -> RegistrationError? {
        guard let first = reasons.first else { return nil }
        if reasons.count == 1 {
            switch first {
            case .classFull: return .violation(.classFull)
            case .classLimit(let limit): return .violation(.classLimit(limit: limit))
            case .timeConflict(let classID): return .violation(.timeConflict(classID: classID))
            default: break
            }
        }
        return .ineligible(reasons, timeZone: facts.timeZone)
    }

    /// A class as the rules see it: the live seats' term and meetings, the catalog's course
    /// and units (a range such as `1-3` counts its least).
    static func eligibilityClass(_ seats: ClassSeats, _ snapshot: CatalogCache.Snapshot) -> EligibilityClass {
        let info = snapshot.listing(id: seats.id)?.info
        return EligibilityClass(
            id: seats.id, term: seats.term, course: info?.courseLabel ?? "",
            units: info.map { units($0.units) } ?? 0, meetings: seats.meetings.isEmpty ? info?.meetings ?? [] : seats.meetings
        )
    }

    static func units(_ text: String) -> Double {
        let number = text.prefix { $0.isNumber || $0 == "." }
        return Double(number) ?? 0
    }
}

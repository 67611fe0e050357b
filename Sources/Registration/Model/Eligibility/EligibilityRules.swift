public import Catalog
public import Foundation

/// A class as the eligibility rules see it: its course, units, term and meetings.
public struct EligibilityClass: Sendable, Equatable {
    public var id: Int64
    public var term: String
    /// The course label (`CS 540`).
    public var course: String
    public var units: Double
    public var meetings: [Meeting]

    public init(id: Int64, term: String, course: String, units: Double, meetings: [Meeting]) {
        self.id = id
        self.term = term
        self.course = course
        self.units = units
        self.meetings = meetings
    }
}

/// One reason a student may not add (or drop) a class, with what would make them eligible.
public enum IneligibleReason: Sendable, Equatable {
    case hold(RegistrationHold)
    /// Outside the student's window: when it opens (nil: none applies to them) and closes, and
    /// whether it has closed already.
    case window(opensAt: Date?, closesAt: Date?, closed: Bool)
    /// The unmet part of the prerequisite expression (the whole, for a student with no record).
    case prerequisite(missing: Requisite)
    /// Courses to be taken with it, or passed, that are not.
    case corequisite(missing: [String])
    /// The restriction the student does not meet, and who may: `level`, `standing`, `major`,
    /// or `record` when the registrar has no record of them.
    case restriction(kind: String, allowed: [String])
    case maxUnits(limit: Double, units: Double)
    /// The student is in another section (`classID`) of the same course.
    case duplicateCourse(classID: Int64, course: String)
    case timeConflict(classID: Int64)
    case classLimit(limit: Int)
    case classFull

    /// The rule's name, as v1 answers it.
    public var rule: String {
        switch self {
        case .hold: "hold"
        case .window: "window"
        case .prerequisite: "prerequisite"
        case .corequisite: "corequisite"
        case .restriction: "restriction"
        case .maxUnits: "max-units"
        case .duplicateCourse: "duplicate-course"
        case .timeConflict: "time-conflict"
        case .classLimit: "class-limit"
        case .classFull: "class-full"
        }
    }

    /// What the student is told, dates in `timeZone` (the campus's).
    public func message(timeZone: TimeZone) -> String {
        switch self {
        case .hold(let hold): return "Registration hold: \(hold.reason) (\(hold.code))"
        case .window(let opensAt, let closesAt, let closed):
            guard let opensAt else { return "You have no registration window for this term" }
            if closed, let closesAt { return "Your registration window closed \(Self.format(closesAt, timeZone))" }
            return "Your registration opens \(Self.format(opensAt, timeZone))"
        case .prerequisite(let missing): return "Requires \(missing.sentence)"
        case .corequisite(let missing): return "Must be taken with \(missing.joined(separator: " and "))"
        case .restriction(let kind, let allowed):
            switch kind {
            case "record": return "Restricted: the registrar has no academic record for you"
            case "level": return "Open only to \(allowed.joined(separator: " or ")) students"
            case "standing": return "Open only to \(allowed.joined(separator: " or ")) standing"
            default: return "Open only to majors in \(allowed.joined(separator: " or "))"
            }
        case .maxUnits(let limit, let units):
            return "This class would bring you to \(Self.units(units)) units, over your limit of \(Self.units(limit))"
        case .duplicateCourse(_, let course): return "You are already enrolled in another section of \(course)"
        case .timeConflict: return "This class meets at the same time as a class you are enrolled in"
        case .classLimit(let limit): return "You are enrolled in \(limit) classes this term, the most allowed"
        case .classFull: return "This class is full"
        }
    }

    static func format(_ date: Date, _ timeZone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = "yyyy-MM-dd HH:mm zzz"
        return formatter.string(from: date)
    }

    static func units(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// Who may add or drop a class: one pure function of everything the registrar's rules ask
/// about, answering **every** failing rule at once (not the first), in this order: hold,
/// window, prerequisite, corequisite, restriction, max-units, duplicate-course, time-conflict,
/// class-limit, class-full. Every path that adds, drops, joins a waitlist, claims an offer,
/// swaps or promotes calls it (docs/registration.md, "Eligibility").
public enum EligibilityRules {
    /// What the rules of an add look at.
    public struct Addition: Sendable {
        public var studentID: Int64
        /// Nil: the registrar has no record of the student.
        public var record: AcademicRecord?
        public var holds: [RegistrationHold]
        /// The term's windows (none: open to everyone).
        public var windows: [RegistrationWindow]
        /// The term's unit limit (nil: none); the record's `maxUnits` overrides it.
        public var termMaxUnits: Double?
        /// The student's classes of the term, without the class being added (and, in a swap,
        /// without the class being dropped).
        public var enrolled: [EligibilityClass]
        public var target: EligibilityClass
        public var requirements: CourseRequirements
        /// The rules the student's overrides for this class let them past.
        public var overrides: Set<OverridableRule>
        public var classLimit: Int
        /// Whether a seat is there for the student: one open, or one offered to them. A waitlist
        /// join asks with `true` (a full class is what it is for).
        public var hasSeat: Bool
        public var now: Date
        /// Whether the term refuses a second section of a course the student is in (the
        /// term's `refuseDuplicateCourses`; off by default, as registering has always allowed).
        public var refusesDuplicateCourses: Bool

        public init(
            studentID: Int64, record: AcademicRecord?, holds: [RegistrationHold], windows: [RegistrationWindow], termMaxUnits: Double?,
            enrolled: [EligibilityClass], target: EligibilityClass, requirements: CourseRequirements, overrides: Set<OverridableRule>,
            classLimit: Int, hasSeat: Bool, now: Date, refusesDuplicateCourses: Bool = true
        ) {
            self.refusesDuplicateCourses = refusesDuplicateCourses
            self.studentID = studentID
            self.record = record
            self.holds = holds
            self.windows = windows
            self.termMaxUnits = termMaxUnits
            self.enrolled = enrolled
            self.target = target
            self.requirements = requirements
            self.overrides = overrides
            self.classLimit = classLimit
            self.hasSeat = hasSeat
            self.now = now
        }
    }

    /// Every reason the student may not add the class; empty when they may.
    public static func add(_ input: Addition) -> [IneligibleReason] {
        var reasons: [IneligibleReason] = []
        let skip = input.overrides
        for hold in input.holds where hold.blocks(.add, at: input.now) { reasons.append(.hold(hold)) }
        if !skip.contains(.window), !input.windows.isEmpty {
            let window = RegistrationWindow.applying(to: input.studentID, standing: input.record?.standing, among: input.windows)
            if window?.isOpen(at: input.now) != true {
                let closed = window.map { $0.opensAt <= input.now } ?? false
                reasons.append(.window(opensAt: window?.opensAt, closesAt: window?.closesAt, closed: closed))
            }
        }
        if !skip.contains(.prerequisite), let prerequisites = input.requirements.prerequisites {
            let book = input.record?.gradesByCourse ?? [:]
            let grades: (String) -> [Grade] = { course in book[CourseLabelKey(course)] ?? [] }
            if let missing = prerequisites.unmet(grades: grades) { reasons.append(.prerequisite(missing: missing)) }
        }
        if !skip.contains(.corequisite), let corequisites = input.requirements.corequisites {
            let missing = unmetCorequisites(corequisites, record: input.record, enrolled: input.enrolled)
            if !missing.isEmpty { reasons.append(.corequisite(missing: missing)) }
        }
        if !skip.contains(.restriction), let restriction = restrictionFailure(input.requirements.restrictions, record: input.record) {
            reasons.append(restriction)
        }
        if !skip.contains(.maxUnits), let limit = input.record?.maxUnits ?? input.termMaxUnits {
            let units = input.enrolled.reduce(input.target.units) { $0 + $1.units }
            if units > limit + 1e-9 { reasons.append(.maxUnits(limit: limit, units: units)) }
        }
        let others = input.enrolled.filter { $0.id != input.target.id && $0.term == input.target.term }
        if input.refusesDuplicateCourses, let duplicate = others.first(where: { CourseLabelKey($0.course) == CourseLabelKey(input.target.course) }) {
            reasons.append(.duplicateCourse(classID: duplicate.id, course: input.target.course))
        }
        if !skip.contains(.timeConflict),
            let clash = others.sorted(by: { $0.id < $1.id }).first(where: { input.target.meetings.conflicts(with: $0.meetings) })
        {
            reasons.append(.timeConflict(classID: clash.id))
        }
        if others.count >= input.classLimit { reasons.append(.classLimit(limit: input.classLimit)) }
        if !skip.contains(.closed), !input.hasSeat { reasons.append(.classFull) }
        return reasons
    }

    /// Every reason the student may not drop `dropping`: a hold that blocks drops, and a class
    /// they keep whose corequisite only `dropping` met (unless an override lets them past it).
    /// `kept` are the classes they keep (in a swap, with the added class among them);
    /// `requirements` answers a course's requirements, `overrides` a class's.
    public static func drop(
        _ dropping: EligibilityClass, kept: [EligibilityClass], record: AcademicRecord?, holds: [RegistrationHold], now: Date,
        requirements: (String) -> CourseRequirements, overrides: (Int64) -> Set<OverridableRule>
    ) -> [IneligibleReason] {
        var reasons: [IneligibleReason] = holds.filter { $0.blocks(.drop, at: now) }.map { .hold($0) }
        var missing: [String] = []
        for other in kept where other.id != dropping.id && !overrides(other.id).contains(.corequisite) {
            guard let corequisites = requirements(other.course).corequisites else { continue }
            let remaining = kept.filter { $0.id != other.id && $0.id != dropping.id }
            for course in unmetCorequisites(corequisites, record: record, enrolled: remaining) where !missing.contains(course) {
                missing.append(course)
            }
        }
        if !missing.isEmpty { reasons.append(.corequisite(missing: missing)) }
        return reasons
    }

    /// The corequisites neither passed nor in progress in the record, nor enrolled.
    static func unmetCorequisites(_ corequisites: [String], record: AcademicRecord?, enrolled: [EligibilityClass]) -> [String] {
        let enrolledCourses = Set(enrolled.map { CourseLabelKey($0.course) })
        return corequisites.filter { course in
            if enrolledCourses.contains(CourseLabelKey(course)) { return false }
            return !(record?.grades(in: course).contains { $0.satisfies(minimum: nil) } ?? false)
        }
    }

    /// The first restriction the student fails: level, then standing, then major; a student
    /// with no record fails any restriction at all.
    static func restrictionFailure(_ restrictions: CourseRequirements.Restrictions?, record: AcademicRecord?) -> IneligibleReason? {
        guard let restrictions else { return nil }
        let levels = restrictions.levels ?? [], standings = restrictions.standings ?? [], majors = restrictions.majors ?? []
        guard !(levels.isEmpty && standings.isEmpty && majors.isEmpty) else { return nil }
        guard let record else { return .restriction(kind: "record", allowed: []) }
        if !levels.isEmpty, !levels.contains(record.level) { return .restriction(kind: "level", allowed: levels.map(\.rawValue)) }
        if !standings.isEmpty, !standings.contains(record.standing) { return .restriction(kind: "standing", allowed: standings.map(\.rawValue)) }
        let mine = Set(record.majors.map { $0.uppercased() })
        if !majors.isEmpty, !majors.contains(where: { mine.contains($0.uppercased()) }) { return .restriction(kind: "major", allowed: majors) }
        return nil
    }
}

public import Foundation

/// Who changed an eligibility setting (an admin's account id) and when; kept with the data and
/// answered with it.
public struct EligibilityChange: Sendable, Codable, Equatable {
    public var by: Int64
    public var at: Date

    public init(by: Int64, at: Date) {
        self.by = by
        self.at = at
    }
}

/// A value of the eligibility data with the change that set it.
public struct Recorded<Value: Sendable & Equatable>: Sendable, Equatable {
    public var value: Value
    public var change: EligibilityChange

    public init(_ value: Value, change: EligibilityChange) {
        self.value = value
        self.change = change
    }
}

/// An instructor's or department's permission for one student in one class: the rules it lets
/// them past.
public struct RegistrationOverride: Sendable, Codable, Equatable {
    public var id: Int64
    public var classId: Int64
    public var rules: [OverridableRule]
    public var createdBy: Int64
    public var createdAt: Date

    public init(id: Int64, classId: Int64, rules: [OverridableRule], createdBy: Int64, createdAt: Date) {
        self.id = id
        self.classId = classId
        self.rules = rules
        self.createdBy = createdBy
        self.createdAt = createdAt
    }
}

/// A student enrolled in a class whose prerequisite a posted grade left unmet (it was in
/// progress when they registered). The enrollment stays; the registrar decides.
public struct PrerequisiteException: Sendable, Codable, Equatable {
    public var accountId: Int64
    public var classId: Int64
    public var term: String
    public var course: String
    /// The unmet part of the prerequisite.
    public var missing: Requisite
    public var detectedAt: Date

    public init(accountId: Int64, classId: Int64, term: String, course: String, missing: Requisite, detectedAt: Date) {
        self.accountId = accountId
        self.classId = classId
        self.term = term
        self.course = course
        self.missing = missing
        self.detectedAt = detectedAt
    }
}

/// Everything the eligibility rules read about one student in one term, as stored: read in
/// one go (one statement on PostgreSQL) by the use case that decides.
public struct EligibilityFacts: Sendable, Equatable {
    /// Nil: the registrar has no record of the student.
    public var record: AcademicRecord?
    public var holds: [RegistrationHold]
    /// The term's windows; none: open to everyone.
    public var windows: [RegistrationWindow]
    /// The term's unit limit (nil: none).
    public var termMaxUnits: Double?
    /// The term's IANA time zone, for the dates in messages (nil: UTC).
    public var termTimeZone: String?
    /// Whether the term refuses a second section of a course (`refuseDuplicateCourses`).
    public var refusesDuplicateCourses: Bool
    /// The requirements of the courses asked about, by course label.
    public var requirements: [String: CourseRequirements]
    public var overrides: [RegistrationOverride]

    public init(
        record: AcademicRecord? = nil, holds: [RegistrationHold] = [], windows: [RegistrationWindow] = [], termMaxUnits: Double? = nil,
        termTimeZone: String? = nil, refusesDuplicateCourses: Bool = false, requirements: [String: CourseRequirements] = [:],
        overrides: [RegistrationOverride] = []
    ) {
        self.refusesDuplicateCourses = refusesDuplicateCourses
        self.record = record
        self.holds = holds
        self.windows = windows
        self.termMaxUnits = termMaxUnits
        self.termTimeZone = termTimeZone
        self.requirements = requirements
        self.overrides = overrides
    }

    /// A course's requirements (none when the registrar set none).
    public func requirements(of course: String) -> CourseRequirements {
        let key = CourseLabelKey(course)
        return requirements.first { CourseLabelKey($0.key) == key }?.value ?? .none
    }

    /// The rules the student's overrides let them past in a class.
    public func overrides(for classID: Int64) -> Set<OverridableRule> {
        Set(overrides.filter { $0.classId == classID }.flatMap(\.rules))
    }

    /// The time zone dates are told in.
    public var timeZone: TimeZone { termTimeZone.flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "UTC")! }
}

extension CourseLabelKey {
    /// The stored form of a course label (`CS 540`): upper case, single spaces.
    public static func normalized(_ label: String) -> String { CourseLabelKey(label).value }
}

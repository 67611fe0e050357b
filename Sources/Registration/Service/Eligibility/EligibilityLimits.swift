/// The bounds on what an admin may store (every input has one): records, holds, windows,
/// requirements and overrides. A value past them is refused with the field that is.
enum EligibilityLimits {
    static let historyEntries = 500
    static let majors = 10
    static let labelLength = 40
    static let holdsPerStudent = 50
    static let overridesPerStudent = 200
    static let windowsPerTerm = 100
    static let windowAccounts = 20_000
    static let requisiteNodes = 100
    static let corequisites = 20
    static let restrictionValues = 50
    static let unitsRange = 0.5...100.0

    static func check(_ record: AcademicRecord) throws(RegistrationError) {
        guard record.history.count <= historyEntries else { throw .eligibilityLimit("history has at most \(historyEntries) courses") }
        guard record.majors.count <= majors else { throw .eligibilityLimit("majors has at most \(majors) entries") }
        if let units = record.maxUnits, !unitsRange.contains(units) { throw .eligibilityLimit("maxUnits must be between 0.5 and 100") }
        for label in record.majors + record.history.flatMap({ [$0.course, $0.term] }) where !isLabel(label) {
            throw .eligibilityLimit("'\(label.prefix(labelLength))' must be 1 to \(labelLength) printable characters")
        }
    }

    static func check(_ hold: RegistrationHold) throws(RegistrationError) {
        guard isLabel(hold.code) else { throw .eligibilityLimit("code must be 1 to \(labelLength) printable characters") }
        guard !hold.reason.isEmpty, hold.reason.count <= 200 else { throw .eligibilityLimit("reason must be 1 to 200 characters") }
        guard !hold.blocks.isEmpty else { throw .eligibilityLimit("blocks names add, drop or both") }
    }

    static func check(_ windows: [RegistrationWindow]) throws(RegistrationError) {
        guard windows.count <= windowsPerTerm else { throw .eligibilityLimit("a term has at most \(windowsPerTerm) windows") }
        guard windows.reduce(0, { $0 + ($1.accountIds?.count ?? 0) }) <= windowAccounts else {
            throw .eligibilityLimit("the windows name at most \(windowAccounts) accounts")
        }
        for window in windows {
            if let closes = window.closesAt, closes <= window.opensAt { throw .eligibilityLimit("a window's closesAt must be after its opensAt") }
            if window.accountIds != nil, window.standing != nil { throw .eligibilityLimit("a window is for accountIds or for a standing, not both") }
        }
    }

    static func check(_ requirements: CourseRequirements, course: String) throws(RegistrationError) {
        guard isLabel(course) else { throw .eligibilityLimit("course must be 1 to \(labelLength) printable characters") }
        if let prerequisites = requirements.prerequisites {
            guard prerequisites.size <= requisiteNodes else { throw .eligibilityLimit("prerequisites have at most \(requisiteNodes) nodes") }
            for label in prerequisites.courses where !isLabel(label) { throw .eligibilityLimit("prerequisites name a course that is not a course label") }
        }
        let corequisites = requirements.corequisites ?? []
        guard corequisites.count <= self.corequisites else { throw .eligibilityLimit("corequisites has at most \(self.corequisites) courses") }
        for label in corequisites where !isLabel(label) { throw .eligibilityLimit("corequisites name a course that is not a course label") }
        guard (requirements.restrictions?.majors ?? []).count <= restrictionValues else {
            throw .eligibilityLimit("restrictions.majors has at most \(restrictionValues) entries")
        }
    }

    static func isLabel(_ text: String) -> Bool {
        !text.isEmpty && text.count <= labelLength && text.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F }
    }
}

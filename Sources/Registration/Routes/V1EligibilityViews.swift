import Foundation
import GatewayHTTP

/// The JSON of the eligibility routes: what is stored, with who changed it and when.
enum V1EligibilityViews {
    struct RecordRequest: Decodable {
        let level: StudentLevel
        let standing: ClassStanding
        let majors: [String]?
        let maxUnits: Double?
        let history: [CourseAttempt]?

        var record: AcademicRecord {
            AcademicRecord(level: level, standing: standing, majors: majors ?? [], maxUnits: maxUnits, history: history ?? [])
        }
    }

    struct Record: Encodable {
        let accountId: Int64
        let level: StudentLevel
        let standing: ClassStanding
        let majors: [String]
        let maxUnits: Double?
        let history: [CourseAttempt]
        let updatedBy: Int64
        let updatedAt: Date

        init(accountID: Int64, _ recorded: Recorded<AcademicRecord>) {
            accountId = accountID
            level = recorded.value.level
            standing = recorded.value.standing
            majors = recorded.value.majors
            maxUnits = recorded.value.maxUnits
            history = recorded.value.history
            updatedBy = recorded.change.by
            updatedAt = recorded.change.at
        }
    }

    struct HoldRequest: Decodable {
        let code: String
        let reason: String
        let blocks: [HoldAction]
        let until: Date?
    }

    struct Holds: Encodable { let items: [RegistrationHold] }

    struct WindowsRequest: Decodable { let windows: [RegistrationWindow] }

    struct Windows: Encodable {
        let term: String
        let windows: [RegistrationWindow]
        let updatedBy: Int64?
        let updatedAt: Date?
    }

    struct RequirementsRequest: Decodable {
        let term: String
        let course: String
        let prerequisites: Requisite?
        let corequisites: [String]?
        let restrictions: CourseRequirements.Restrictions?

        var requirements: CourseRequirements {
            CourseRequirements(prerequisites: prerequisites, corequisites: corequisites, restrictions: restrictions)
        }
    }

    struct Requirements: Encodable {
        let term: String
        let course: String
        let prerequisites: Requisite?
        let corequisites: [String]?
        let restrictions: CourseRequirements.Restrictions?
        let updatedBy: Int64?
        let updatedAt: Date?
    }

    struct OverrideRequest: Decodable {
        let classId: Int64
        let rules: [OverridableRule]
    }

    struct Overrides: Encodable { let items: [RegistrationOverride] }

    struct Exceptions: Encodable { let items: [PrerequisiteException] }

    struct CheckRequest: Decodable { let classIds: [Int64] }

    struct CheckItem: Encodable {
        let classId: Int64
        let eligible: Bool
        let status: String
        let reasons: [ProblemValue]
    }

    struct Check: Encodable { let items: [CheckItem] }

    struct SwapRequest: Decodable {
        let drop: Int64
        let add: Int64
    }

    struct Status: Encodable {
        struct Hold: Encodable {
            let code: String
            let reason: String
            let blocks: [HoldAction]
            let until: Date?
        }

        struct Window: Encodable {
            let opensAt: Date?
            let closesAt: Date?
            let open: Bool
            /// `account`, `standing`, `everyone`, or `none` (windows are set and none is theirs),
            /// or `unrestricted` (the term has no windows).
            let appliesBy: String
        }

        struct Units: Encodable {
            let registered: Double
            let limit: Double?
        }

        let term: String
        let level: StudentLevel?
        let standing: ClassStanding?
        let majors: [String]
        let holds: [Hold]
        let window: Window
        let units: Units
        let overrides: [RegistrationOverride]

        init(_ status: EligibilityStatus) {
            term = status.term
            level = status.record?.level
            standing = status.record?.standing
            majors = status.record?.majors ?? []
            holds = status.holds.map { Hold(code: $0.code, reason: $0.reason, blocks: $0.blocks, until: $0.until) }
            let appliesBy: String
            if !status.windowsDefined {
                appliesBy = "unrestricted"
            } else if let window = status.window {
                appliesBy = window.accountIds != nil ? "account" : window.standing != nil ? "standing" : "everyone"
            } else {
                appliesBy = "none"
            }
            window = Window(opensAt: status.window?.opensAt, closesAt: status.window?.closesAt, open: status.windowOpen, appliesBy: appliesBy)
            units = Units(registered: status.unitsRegistered, limit: status.unitLimit)
            overrides = status.overrides
        }
    }
}

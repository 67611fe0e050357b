/// What a student wants to hear of one of their stored gradebook accounts: the grade
/// categories on, or the account off altogether while another stays on. No stored preference
/// means everything on.
public struct GradebookAlertPreference: Sendable, Equatable {
    /// The categories this preference switches.
    public static let categories = ["grade.new", "grade.changed"]

    public var gradebookAccountID: Int64
    public var enabled: Bool
    /// Grade categories turned off for this account.
    public var muted: Set<String>

    public init(gradebookAccountID: Int64, enabled: Bool = true, muted: Set<String> = []) {
        self.gradebookAccountID = gradebookAccountID
        self.enabled = enabled
        self.muted = muted.intersection(Self.categories)
    }

    /// Whether grade changes of `category` from this account reach the student.
    public func wants(_ category: String) -> Bool { enabled && !muted.contains(category) }

    /// Whether the account is worth polling at all.
    public var wantsAny: Bool { Self.categories.contains(where: wants) }
}

/// What a grade notification says: the course and the assignment, with the score.
public enum GradeNoticeText {
    /// `New grade in CPE 458, Lab 3: 13.5/15`.
    public static func title(change: String, course: String, assignment: String, score: String) -> String {
        let what = switch change {
        case "changedScore": "Grade changed in"
        case "newAssignment": "New assignment in"
        default: "New grade in"
        }
        let course = course.isEmpty ? "your gradebook" : course
        let item = score.isEmpty ? assignment : "\(assignment): \(score)"
        return item.isEmpty ? "\(what) \(course)" : "\(what) \(course), \(item)"
    }

    /// `Lab 3 in CPE 458: 13.5/15 (gradebook account alice at Cal Poly CSC).`
    public static func body(course: String, assignment: String, score: String, account: String?) -> String {
        let course = course.isEmpty ? "your gradebook" : course
        var text = assignment.isEmpty ? "A change in \(course)" : "\(assignment) in \(course)"
        if !score.isEmpty { text += ": \(score)" }
        if let account { text += " (gradebook account \(account))" }
        return text + "."
    }
}

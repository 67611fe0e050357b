public import Foundation

/// One course of a student's grades as `GET /v1/me/grades` answers it, whatever the source
/// (Canvas, Cal Poly): the course's current score and grade where the source computes them, and
/// each assignment with the student's score. Unknown numbers are `nil` (JSON `null`), never 0.
public struct CourseGrades: Sendable, Equatable, Codable {
    public var id: String
    public var name: String
    /// The course code the source gives (Canvas's `course_code`).
    public var code: String?
    public var currentScore: Double?
    public var currentGrade: String?
    public var assignments: [AssignmentGrade]
    /// Why the course is listed without grades (the source will not show them to the student);
    /// nil when its grades are shown.
    public var gradesWithheld: GradesWithheld? = nil

    /// Why a source lists a course but not its grades.
    public enum GradesWithheld: String, Sendable, Codable, CaseIterable {
        /// The student may not view grades there (Moodle's `nopermissiontoviewgrades`).
        case notPermitted = "not-permitted"
        /// The teacher hid the gradebook from students (Moodle's course setting `showgrades`).
        case hiddenByTeacher = "hidden-by-teacher"
    }
}

/// One assignment and the student's score on it.
public struct AssignmentGrade: Sendable, Equatable, Codable {
    /// Where the student stands on it, as the source says: `graded`, `submitted`,
    /// `unsubmitted`, `pending_review`, or, overriding those, `excused`, `missing`, `late`.
    public enum State: String, Sendable, Codable, CaseIterable {
        case graded, submitted, unsubmitted, pendingReview = "pending_review", excused, missing, late
    }

    public var id: String
    public var name: String
    /// The posted score; nil while the teacher has not posted it (or there is none).
    public var score: Double?
    public var pointsPossible: Double?
    public var dueAt: Date?
    public var gradedAt: Date?
    public var state: State
    /// The teacher's feedback as plain text, where the source gives it (Moodle); nil otherwise.
    public var feedback: String? = nil

    /// What a student reads: `8.5/10`, `8.5`, or `-` with no posted score.
    public var display: String {
        guard let score else { return "-" }
        guard let pointsPossible else { return Self.number(score) }
        return "\(Self.number(score))/\(Self.number(pointsPossible))"
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

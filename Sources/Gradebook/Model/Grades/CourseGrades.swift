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

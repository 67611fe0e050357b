public import Foundation

/// The parts of Canvas's REST objects the gateway reads, as Canvas's API documents them
/// (Users, Courses, Assignments, Submissions). Fields Canvas may leave out or send as `null`
/// are optional; everything else in an object is ignored.
public enum CanvasRecords {
    /// `GET /api/v1/users/self`: whose token it is.
    public struct User: Sendable, Equatable, Decodable {
        public var id: CanvasID
        public var name: String?
    }

    /// `GET /api/v1/courses?enrollment_state=active&include[]=total_scores`.
    public struct Course: Sendable, Equatable, Decodable {
        public var id: CanvasID
        public var name: String?
        public var courseCode: String?
        public var enrollments: [Enrollment]?

        enum CodingKeys: String, CodingKey {
            case id, name, enrollments
            case courseCode = "course_code"
        }

        /// The caller's own student enrollment: where Canvas puts the course's current score.
        public var studentEnrollment: Enrollment? {
            enrollments?.first { $0.type?.lowercased() == "student" } ?? enrollments?.first
        }
    }

    /// One enrollment of the caller in a course, with `include[]=total_scores`.
    public struct Enrollment: Sendable, Equatable, Decodable {
        public var type: String?
        public var computedCurrentScore: Double?
        public var computedCurrentGrade: String?

        enum CodingKeys: String, CodingKey {
            case type
            case computedCurrentScore = "computed_current_score"
            case computedCurrentGrade = "computed_current_grade"
        }
    }

    /// `GET /api/v1/courses/:id/assignments?include[]=submission`.
    public struct Assignment: Sendable, Equatable, Decodable {
        public var id: CanvasID
        public var name: String?
        public var pointsPossible: Double?
        public var dueAt: String?
        public var submission: Submission?

        enum CodingKeys: String, CodingKey {
            case id, name, submission
            case pointsPossible = "points_possible"
            case dueAt = "due_at"
        }
    }

    /// The caller's submission for an assignment. A score the teacher has not posted is `null`
    /// (never 0), whatever the grade book holds.
    public struct Submission: Sendable, Equatable, Decodable {
        public var score: Double?
        public var gradedAt: String?
        public var postedAt: String?
        public var workflowState: String?
        public var excused: Bool?
        public var missing: Bool?
        public var late: Bool?

        enum CodingKeys: String, CodingKey {
            case score, excused, missing, late
            case gradedAt = "graded_at"
            case postedAt = "posted_at"
            case workflowState = "workflow_state"
        }
    }
}

/// A Canvas object id: a JSON number, or a string where the caller asked for string ids
/// (`Accept: application/json+canvas-string-ids`). Kept as its decimal text.
public struct CanvasID: Sendable, Hashable, Decodable, CustomStringConvertible {
    public let value: String

    public init(_ value: String) { self.value = value }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int64.self) {
            value = String(number)
        } else {
            let text = try container.decode(String.self)
            guard !text.isEmpty, text.utf8.count <= 32, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a Canvas id")
            }
            value = text
        }
    }

    public var description: String { value }
}

import Foundation

/// A Canvas LMS source: a student's access token, their active courses with the computed
/// current score and grade, and each course's assignments with their submission
/// (`docs/gradebook.md`, Canvas). The Cal Poly drill-down records are not Canvas's; those
/// routes answer ``GradebookError/notSpokenBySource``, and `/v1/me/grades` reads Canvas.
public struct CanvasAdapter: GradebookAdapter {
    let client: CanvasClient

    public init(transport: UpstreamTransport) {
        client = CanvasClient(transport: transport)
    }

    init(client: CanvasClient) {
        self.client = client
    }

    /// Whose token it is (`GET /api/v1/users/self`): the Canvas user id is the account's
    /// username at the gateway.
    public func verify(_ credentials: GradebookCredentials, source: GradebookSource) async throws -> String {
        try await client.object(CanvasRecords.User.self, "/api/v1/users/self", credentials, source: source).id.value
    }

    public func courseGrades(_ credentials: GradebookCredentials, source: GradebookSource, refresh: Bool) async throws -> [CourseGrades] {
        let courses = try await client.list(
            CanvasRecords.Course.self, "/api/v1/courses", query: [("enrollment_state", "active"), ("include[]", "total_scores")], credentials,
            source: source
        )
        var grades: [CourseGrades] = []
        for course in courses {
            let assignments = try await client.list(
                CanvasRecords.Assignment.self, "/api/v1/courses/\(course.id.value)/assignments", query: [("include[]", "submission")], credentials,
                source: source
            )
            grades.append(CanvasGrades.course(course, assignments: assignments))
        }
        return grades
    }

    public func sections(_ credentials: GradebookCredentials, source: GradebookSource, refresh: Bool) async throws -> [GradebookSection] {
        throw notSpoken(source)
    }

    public func enrollments(term: Int64, course: String, _ credentials: GradebookCredentials, source: GradebookSource, refresh: Bool) async throws -> [GradebookEnrollment] {
        throw notSpoken(source)
    }

    public func assignments(term: Int64, course: String, user: String, _ credentials: GradebookCredentials, source: GradebookSource, refresh: Bool) async throws -> [GradebookAssignment] {
        throw notSpoken(source)
    }

    public func assignmentStats(term: Int64, course: String, assignment: Int64, _ credentials: GradebookCredentials, source: GradebookSource, refresh: Bool) async throws -> GradebookAssignmentStats {
        throw notSpoken(source)
    }

    func notSpoken(_ source: GradebookSource) -> GradebookError {
        .notSpokenBySource(sourceID: source.id, name: source.name, kind: source.kind.rawValue)
    }
}

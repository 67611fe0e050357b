/// What the gateway asks of any upstream gradebook, in normalised records, chosen by
/// ``GradebookSource/Kind``: ``CalPolyAdapter`` and ``CanvasAdapter`` (docs/gradebook.md says
/// how to add another) without touching the service or the routes.
public protocol GradebookAdapter: Sendable {
    /// Checks the credentials (a login probe, Canvas's `users/self`) and answers the upstream's
    /// name for their owner, which the gateway stores as the account's username; throws
    /// ``GradebookError/upstreamUnauthorized``.
    func verify(_ credentials: GradebookCredentials, source: GradebookSource) async throws -> String
    /// The student's courses with their assignments and scores, normalised (`/v1/me/grades`, polling).
    func courseGrades(_ credentials: GradebookCredentials, source: GradebookSource, refresh: Bool) async throws -> [CourseGrades]
    func sections(_ credentials: GradebookCredentials, source: GradebookSource, refresh: Bool) async throws -> [GradebookSection]
    func enrollments(term: Int64, course: String, _ credentials: GradebookCredentials, source: GradebookSource, refresh: Bool) async throws -> [GradebookEnrollment]
    /// One student's assignments with their scores (the score that counts first).
    func assignments(term: Int64, course: String, user: String, _ credentials: GradebookCredentials, source: GradebookSource, refresh: Bool) async throws -> [GradebookAssignment]
    func assignmentStats(term: Int64, course: String, assignment: Int64, _ credentials: GradebookCredentials, source: GradebookSource, refresh: Bool) async throws -> GradebookAssignmentStats
}

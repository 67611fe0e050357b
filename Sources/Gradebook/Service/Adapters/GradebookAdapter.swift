/// What the gateway asks of any upstream gradebook, in normalised records. The Cal Poly
/// adapter is the first; a Canvas adapter (courses, enrollments, assignments, submissions over
/// bearer tokens) implements the same protocol and is chosen by ``GradebookSource/Kind``
/// (docs/gradebook.md says how), without touching the service or the routes.
public protocol GradebookAdapter: Sendable {
    /// Checks the credentials (a login probe); throws ``GradebookError/upstreamUnauthorized``.
    func verify(_ credentials: GradebookCredentials, source: GradebookSource) async throws
    func sections(_ credentials: GradebookCredentials, source: GradebookSource, refresh: Bool) async throws -> [GradebookSection]
    func enrollments(term: Int64, course: String, _ credentials: GradebookCredentials, source: GradebookSource, refresh: Bool) async throws -> [GradebookEnrollment]
    /// One student's assignments with their scores (the score that counts first).
    func assignments(term: Int64, course: String, user: String, _ credentials: GradebookCredentials, source: GradebookSource, refresh: Bool) async throws -> [GradebookAssignment]
    func assignmentStats(term: Int64, course: String, assignment: Int64, _ credentials: GradebookCredentials, source: GradebookSource, refresh: Bool) async throws -> GradebookAssignmentStats
}

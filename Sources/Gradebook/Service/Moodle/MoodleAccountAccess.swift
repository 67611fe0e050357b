import Foundation

extension CanvasOAuthService {
    /// Runs `body` with a Moodle account's token. A token Moodle refuses (`invalidtoken`,
    /// `accessexception`) marks the account `needs-student` and tells its student once (as a
    /// refused Canvas refresh does); an account already marked is not sent to Moodle again
    /// until its student connects it anew.
    func tokenAccess<T: Sendable>(
        _ stored: StoredGradebookAccount, source: GradebookSource, _ credentials: GradebookCredentials,
        _ body: (GradebookCredentials) async throws -> T
    ) async throws -> T {
        guard stored.status == .ok else { throw GradebookError.upstreamUnauthorized(sourceID: source.id, name: source.name) }
        do {
            return try await body(credentials)
        } catch GradebookError.upstreamUnauthorized {
            try await markNeedsStudent(stored)
            throw GradebookError.upstreamUnauthorized(sourceID: source.id, name: source.name)
        }
    }
}

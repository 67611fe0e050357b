import Auth
import Contracts
import Foundation
import Jobs

/// The Auth module's housekeeping on the job system: every hour, tokens that expired or were
/// revoked more than a day ago are deleted, so the table holds live tokens and a day of
/// history (for "why was I signed out" questions) and never grows without bound.
enum AuthJobHandlers {
    static let pruneTokens = JobKind<NoPayload>("auth.prune-tokens")

    static func register(_ auth: AuthService, in registry: JobRegistry) throws {
        try registry.registerHousekeeping(pruneTokens) { _ = try await auth.pruneTokens(olderThan: 24 * 3600) }
    }
}

import Foundation
import Storage

extension GradebookAccountService {
    /// Stores a Moodle account: with a username and password, they are exchanged once for a
    /// web-service token (the password is kept nowhere); with a token, it is used as given.
    /// Either way the token is probed (whose it is, and whether it may read grades) before it
    /// is sealed. The same Moodle user again renews an account marked `needs-student` in place
    /// (its id, snapshot and alerts stay); one that still works is 409.
    func addWebServiceAccount(accountID: Int64, source: GradebookSource, credentials: GradebookCredentials) async throws -> GradebookAccountInfo {
        var token = credentials
        if !credentials.username.isEmpty {
            let username = credentials.username.trimmingCharacters(in: .whitespaces)
            guard !username.isEmpty, username.utf8.count <= 200 else {
                throw GradebookError.invalid(field: "username", message: "A username is 1 to 200 characters.")
            }
            guard !credentials.password.isEmpty, credentials.password.utf8.count <= 1024 else {
                throw GradebookError.invalid(field: "password", message: "A password is 1 to 1024 bytes.")
            }
            guard let signIn else { throw GradebookError.invalid(field: "username", message: "This source takes an accessToken.") }
            let issued = try await signIn(GradebookCredentials(username: username, password: credentials.password, caller: credentials.caller), source)
            // Moodle's own answer: checked already, so not throttled as a typed credential.
            token = GradebookCredentials(username: "", password: issued, caller: credentials.caller.checkingNothing)
        } else {
            guard MoodleClient.isToken(credentials.password) else {
                throw GradebookError.invalid(field: "accessToken", message: "A Moodle token is 16 to 128 letters and digits.")
            }
        }
        let owner = try await verifier?(token, source) ?? token.username
        guard !owner.isEmpty, owner.utf8.count <= 200 else {
            throw GradebookError.upstreamFailed(sourceID: source.id, name: source.name, detail: "the upstream named no owner for these credentials")
        }
        let existing = try await transactions.read { [store] db in try store.find(accountID: accountID, sourceID: source.id, username: owner, in: db) }
        if let existing, existing.status == .needsStudent {
            _ = try await reseal(existing, expected: existing.sealedPassword, secret: token.password)
            return GradebookAccountInfo(id: existing.id, sourceID: existing.sourceID, username: owner, createdAt: existing.createdAt, status: .ok)
        }
        return try await store(accountID: accountID, sourceID: source.id, username: owner, secret: token.password, kind: .accessToken)
    }
}

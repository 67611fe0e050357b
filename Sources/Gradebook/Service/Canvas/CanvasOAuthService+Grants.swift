public import Contracts
import Crypto
public import Foundation
public import GatewayCore
import HTTPClient
public import Jobs
public import Storage

/// A Canvas account's grant in use (refreshed once when expiring or refused, revoked when the
/// student forgets the account) and the flow's parts: the token endpoint, the sealed ticket and
/// grant, and the addresses under the public URL. The flow itself is in
/// CanvasOAuthService.swift.
extension CanvasOAuthService {
    // MARK: Using and renewing a grant

    /// Runs `body` with credentials that reach Canvas for `stored`: as they are for a token or
    /// a password; for an OAuth account, its access token, refreshed first when it is expiring,
    /// and refreshed once more (then `body` again) when Canvas says it expired.
    public func access<T: Sendable>(
        _ stored: StoredGradebookAccount, source: GradebookSource, _ credentials: GradebookCredentials,
        _ body: (GradebookCredentials) async throws -> T
    ) async throws -> T {
        if source.kind == .moodle { return try await tokenAccess(stored, source: source, credentials, body) }
        guard stored.credentialKind == .oauth else { return try await body(credentials) }
        guard stored.status == .ok else { throw GradebookError.upstreamUnauthorized(sourceID: source.id, name: source.name) }
        var sealed = stored.sealedPassword
        var grant = try Self.decode(credentials.password, source: source)
        if grant.isExpiring(at: clock.now()) {
            (grant, sealed) = try await refresh(stored, sealed: sealed, grant: grant, source: source)
        }
        do {
            return try await body(credentials.with(secret: grant.accessToken))
        } catch GradebookError.upstreamTokenExpired {
            (grant, _) = try await refresh(stored, sealed: sealed, grant: grant, source: source)
            return try await body(credentials.with(secret: grant.accessToken))
        }
    }

    /// One refresh: the new grant sealed in place of the old (only if the row still holds what
    /// was read; a concurrent refresh's result is as good). A refresh token Canvas refuses marks
    /// the account `needs-student` and tells its student, once.
    func refresh(
        _ stored: StoredGradebookAccount, sealed: String, grant: CanvasOAuth.Grant, source: GradebookSource
    ) async throws -> (CanvasOAuth.Grant, String) {
        guard let key = try await sources.developerKey(of: source) else { throw GradebookError.upstreamUnauthorized(sourceID: source.id, name: source.name) }
        let answer: CanvasOAuth.TokenAnswer
        do {
            answer = try await token(source, key: key, form: [
                ("grant_type", "refresh_token"), ("client_id", key.id), ("client_secret", key.secret), ("refresh_token", grant.refreshToken),
            ])
        } catch CanvasOAuth.Failure.refused {
            try await markNeedsStudent(stored)
            throw GradebookError.upstreamUnauthorized(sourceID: source.id, name: source.name)
        } catch is CanvasOAuth.Failure {
            throw GradebookError.upstreamFailed(sourceID: source.id, name: source.name, detail: "Canvas's token endpoint failed")
        }
        let renewed = grant.refreshed(by: answer, at: clock.now())
        let resealed = try await accounts.reseal(stored, expected: sealed, secret: try Self.encode(renewed))
        return (renewed, resealed)
    }

    func markNeedsStudent(_ stored: StoredGradebookAccount) async throws {
        let notice = try NewJob(
            GradebookJobs.accountNeedsStudent, GradebookJobs.AccountNeedsStudent(gradebookAccountId: stored.id, ownerAccountId: stored.accountID),
            uniqueKey: "needs-student:\(stored.id):\(stored.sealedPassword.suffix(16))"
        )
        try await accounts.markNeedsStudent(stored, notice: notice, jobs: jobs)
    }

    /// Asks Canvas to delete an OAuth account's token (`DELETE /login/oauth2/token`), as the
    /// student forgets the account. Best effort: the account goes whatever Canvas answers.
    public func revoke(_ stored: StoredGradebookAccount) async {
        guard stored.credentialKind == .oauth, let source = try? await sources.source(id: stored.sourceID),
              let opened = try? accounts.open(stored), let grant = try? Self.decode(opened.password, source: source)
        else { return }
        await revoke(grant, source: source, caller: .student(accountID: stored.accountID))
    }

    /// Asks Canvas to delete a grant's token; best effort.
    func revoke(_ grant: CanvasOAuth.Grant, source: GradebookSource, caller: UpstreamCaller) async {
        var request = OutboundRequest(method: .delete, url: source.canvas("/login/oauth2/token"), timeout: transport.timeout, followRedirects: false)
        request.headers.add(name: "Authorization", value: "Bearer \(grant.accessToken)")
        _ = try? await transport.exchange(request, source: source, caller: caller)
    }

    // MARK: Parts

    /// `POST /login/oauth2/token` with a form; 400 and 401 are a refusal (an unknown code,
    /// a refused refresh token), anything else not 200 is Canvas failing.
    func token(_ source: GradebookSource, key: (id: String, secret: String), form: [(String, String)]) async throws -> CanvasOAuth.TokenAnswer {
        var components = URLComponents()
        components.queryItems = form.map { URLQueryItem(name: $0.0, value: $0.1) }
        let body = (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
        var request = OutboundRequest(
            method: .post, url: source.canvas("/login/oauth2/token"),
            headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"], body: Data(body.utf8),
            timeout: transport.timeout, followRedirects: false, maxResponseBodySize: 64 << 10
        )
        let reply: UpstreamReply
        do {
            reply = try await transport.exchange(request, source: source, caller: .gateway)
        } catch {
            throw CanvasOAuth.Failure.unavailable
        }
        switch reply.status {
        case 200:
            guard let answer = try? JSONDecoder().decode(CanvasOAuth.TokenAnswer.self, from: reply.body), !answer.accessToken.isEmpty else {
                throw CanvasOAuth.Failure.unavailable
            }
            return answer
        case 400, 401: throw CanvasOAuth.Failure.refused
        default: throw CanvasOAuth.Failure.unavailable
        }
    }

    func seal(_ ticket: CanvasOAuth.Ticket) throws -> String {
        do {
            return try vault.seal(String(decoding: try JSONEncoder().encode(ticket), as: UTF8.self), context: Self.ticketContext)
        } catch {
            throw GradebookError.vaultUnavailable
        }
    }

    func sealGrant(_ grant: CanvasOAuth.Grant) throws -> String {
        do {
            return try vault.seal(try Self.encode(grant), context: Self.grantContext)
        } catch {
            throw GradebookError.vaultUnavailable
        }
    }

    func openGrant(_ sealed: String) throws -> CanvasOAuth.Grant {
        let text = try vault.open(sealed, context: Self.grantContext)
        return try JSONDecoder().decode(CanvasOAuth.Grant.self, from: Data(text.utf8))
    }

    /// What a flow's row is keyed by: SHA-256 of its browser binding, or of a completion code.
    static func hash(_ secret: String) -> Data { Data(SHA256.hash(data: Data(secret.utf8))) }

    func open(_ sealed: String) -> CanvasOAuth.Ticket? {
        guard sealed.utf8.count <= 4096, let text = try? vault.open(sealed, context: Self.ticketContext) else { return nil }
        return try? JSONDecoder().decode(CanvasOAuth.Ticket.self, from: Data(text.utf8))
    }

    static func encode(_ grant: CanvasOAuth.Grant) throws -> String {
        String(decoding: try JSONEncoder().encode(grant), as: UTF8.self)
    }

    static func decode(_ secret: String, source: GradebookSource) throws -> CanvasOAuth.Grant {
        guard let grant = try? JSONDecoder().decode(CanvasOAuth.Grant.self, from: Data(secret.utf8)) else {
            throw GradebookError.upstreamUnauthorized(sourceID: source.id, name: source.name)
        }
        return grant
    }

    /// `path` under the public URL (its own path kept in front).
    static func address(_ path: String, under publicURL: URL) -> URL {
        let base = publicURL.absoluteString.hasSuffix("/") ? publicURL.absoluteString : publicURL.absoluteString + "/"
        return URL(string: base + path)!
    }

    /// Where Canvas sends the browser back: the `redirect_uri` the developer key must list.
    public static func callback(_ publicURL: URL) -> URL { address("v1/gradebook/oauth/callback", under: publicURL) }

    /// 32 random bytes, base64url.
    static func randomToken() -> String {
        let bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        return Base64URL.encode(bytes)
    }
}

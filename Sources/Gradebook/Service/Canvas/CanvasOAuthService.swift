import Contracts
import Crypto
public import Foundation
public import GatewayCore
import HTTPClient
public import Jobs
public import Storage

/// Connecting a Canvas account with the campus's developer key (Canvas's OAuth2 docs):
/// 1. ``begin(owner:sourceID:)``: the app asks for an authorization URL on the gateway, under
///    the public URL, carrying a sealed ticket (student, source, a browser binding, 10 minutes);
/// 2. ``start(ticket:)``: the browser opens it, gets the binding as a cookie, and goes on to
///    Canvas's `/login/oauth2/auth` with the ticket as `state`;
/// 3. ``finish(_:)``: Canvas sends the browser back with a code; with the same browser's cookie,
///    the code is exchanged at `/login/oauth2/token` (client id and secret as form fields) and
///    the grant (access token, refresh token, expiry) is sealed and stored for the student who
///    began. The browser lands on the web app's grades page, which says how it went.
///
/// Then ``access(_:source:_:)`` uses an account's grant, refreshing it once when it is
/// expiring or when Canvas says it expired; a refresh Canvas refuses marks the account
/// `needs-student` and tells its student once. ``revoke(_:)`` asks Canvas to delete the token
/// when the student forgets the account.
public final class CanvasOAuthService: Sendable {
    let sources: GradebookSourceService
    let accounts: GradebookAccountService
    let transport: UpstreamTransport
    let vault: any SecretSealer
    let jobs: any JobEnqueuing
    let clock: any GatewayClock
    /// Where the gateway is reached from browsers; nil turns the flow off.
    let publicURL: URL?

    /// How long a flow may take, from the app's request to Canvas's callback.
    public static let flowLifetime: TimeInterval = 600
    static let ticketContext = VaultContext(table: "gradebook_oauth_flows", rowID: 0, owner: 0)

    public init(
        sources: GradebookSourceService, accounts: GradebookAccountService, transport: UpstreamTransport, vault: any SecretSealer,
        jobs: any JobEnqueuing, clock: any GatewayClock, publicURL: URL?
    ) {
        self.sources = sources
        self.accounts = accounts
        self.transport = transport
        self.vault = vault
        self.jobs = jobs
        self.clock = clock
        self.publicURL = publicURL
    }

    /// Whether the binding cookie must be `Secure` (the gateway is public over https).
    public var secureCookies: Bool { publicURL?.scheme?.lowercased() == "https" }

    /// Whether students can connect `source` with OAuth2: a canvas source with a developer
    /// key, on a gateway with a public URL.
    public func available(for source: GradebookSource) async -> Bool {
        guard publicURL != nil, source.kind == .canvas, source.oauthClientID != nil else { return false }
        return (try? await sources.hasClientSecret(id: source.id)) ?? false
    }

    // MARK: The flow

    /// The URL the app opens in a browser to connect `sourceID`'s Canvas for `owner`.
    public func begin(owner: Int64, sourceID: Int64) async throws -> URL {
        guard let publicURL else { throw GradebookError.oauthNotConfigured("The gateway has no public URL (GATEWAY_PUBLIC_URL) for Canvas to send students back to") }
        let source = try await sources.source(id: sourceID)
        guard source.kind == .canvas else {
            throw GradebookError.invalid(field: "sourceId", message: "Source \(sourceID) is not a Canvas source.")
        }
        guard try await sources.developerKey(of: source) != nil else {
            throw GradebookError.oauthNotConfigured("\(source.name) (source \(source.id)) has no developer key; connect with a personal access token instead")
        }
        let ticket = CanvasOAuth.Ticket(owner: owner, source: source.id, binding: Self.randomToken(), expires: clock.now().addingTimeInterval(Self.flowLifetime))
        let sealed = try seal(ticket)
        var components = URLComponents(url: Self.address("v1/gradebook/oauth/start", under: publicURL), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "ticket", value: sealed)]
        return components.url!
    }

    /// Where the browser goes from the start address, and the binding cookie's value.
    public struct Start: Sendable {
        public let location: URL
        public let binding: String
    }

    public func start(ticket sealed: String) async throws -> Start {
        guard let publicURL, let ticket = open(sealed), ticket.expires > clock.now() else {
            throw GradebookError.invalid(field: "ticket", message: "The link expired or is not from this gateway; start connecting again from the app.")
        }
        let source = try await sources.source(id: ticket.source)
        guard let key = try await sources.developerKey(of: source) else {
            throw GradebookError.oauthNotConfigured("\(source.name) (source \(source.id)) has no developer key")
        }
        let location = source.canvas("/login/oauth2/auth", query: [
            ("client_id", key.id), ("response_type", "code"), ("state", sealed), ("redirect_uri", Self.callback(publicURL).absoluteString),
        ])
        return Start(location: location, binding: ticket.binding)
    }

    /// What Canvas sent back to the callback, and the browser's cookie.
    public struct Callback: Sendable {
        public var code: String?
        public var state: String?
        public var error: String?
        public var binding: String?

        public init(code: String?, state: String?, error: String?, binding: String?) {
            self.code = code
            self.state = state
            self.error = error
            self.binding = binding
        }
    }

    /// Finishes a flow: the web app's page that says how it went (`#/grades?canvas=connected`,
    /// or `canvas=<why not>`). Never throws: the browser always lands somewhere that explains.
    public func finish(_ callback: Callback) async -> URL {
        let outcome: String
        do {
            try await connect(callback)
            outcome = "connected"
        } catch let failure as CanvasOAuth.Failure {
            outcome = failure.rawValue
        } catch GradebookError.accountExists {
            outcome = CanvasOAuth.Failure.exists.rawValue
        } catch GradebookError.accountLimit {
            outcome = CanvasOAuth.Failure.limit.rawValue
        } catch {
            outcome = CanvasOAuth.Failure.unavailable.rawValue
        }
        let base = publicURL.map { Self.address("", under: $0).absoluteString } ?? "/"
        return URL(string: base + "#/grades?canvas=\(outcome)")!
    }

    func connect(_ callback: Callback) async throws {
        guard let sealed = callback.state, let ticket = open(sealed), ticket.expires > clock.now(), let publicURL else {
            throw CanvasOAuth.Failure.expired
        }
        guard let binding = callback.binding, constantTimeEquals(Array(binding.utf8), Array(ticket.binding.utf8)) else { throw CanvasOAuth.Failure.otherBrowser }
        if callback.error != nil { throw CanvasOAuth.Failure.denied }
        guard let code = callback.code, (1...2048).contains(code.utf8.count) else { throw CanvasOAuth.Failure.refused }
        let source = try await sources.source(id: ticket.source)
        guard let key = try await sources.developerKey(of: source) else { throw CanvasOAuth.Failure.unavailable }
        let answer = try await token(source, key: key, form: [
            ("grant_type", "authorization_code"), ("client_id", key.id), ("client_secret", key.secret),
            ("redirect_uri", Self.callback(publicURL).absoluteString), ("code", code),
        ])
        guard let refreshToken = answer.refreshToken, let user = answer.user else { throw CanvasOAuth.Failure.unavailable }
        let grant = CanvasOAuth.Grant(
            accessToken: answer.accessToken, refreshToken: refreshToken,
            expiresAt: answer.expiresIn.map { clock.now().addingTimeInterval(TimeInterval($0)) }
        )
        // The same Canvas user connected again (after Canvas stopped renewing it): the account
        // keeps its id, snapshot and settings, with the new grant.
        if try await accounts.renew(owner: ticket.owner, sourceID: source.id, username: user.id.value, secret: try Self.encode(grant)) { return }
        _ = try await accounts.store(
            accountID: ticket.owner, sourceID: source.id, username: user.id.value, secret: try Self.encode(grant), kind: .oauth
        )
    }

    // MARK: Using and renewing a grant

    /// Runs `body` with credentials that reach Canvas for `stored`: as they are for a token or
    /// a password; for an OAuth account, its access token, refreshed first when it is expiring,
    /// and refreshed once more (then `body` again) when Canvas says it expired.
    public func access<T: Sendable>(
        _ stored: StoredGradebookAccount, source: GradebookSource, _ credentials: GradebookCredentials,
        _ body: (GradebookCredentials) async throws -> T
    ) async throws -> T {
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
        var request = OutboundRequest(method: .delete, url: source.canvas("/login/oauth2/token"), timeout: transport.timeout, followRedirects: false)
        request.headers.add(name: "Authorization", value: "Bearer \(grant.accessToken)")
        _ = try? await transport.exchange(request, source: source, caller: .student(accountID: stored.accountID))
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

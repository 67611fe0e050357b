public import Contracts
import Crypto
public import Foundation
public import GatewayCore
import HTTPClient
public import Jobs
public import Storage

/// Connecting a Canvas account with the campus's developer key (Canvas's OAuth2 docs):
/// 1. ``begin(owner:sourceID:returnTo:)``: the app asks for an authorization URL on the gateway,
///    under the public URL, carrying a sealed ticket (student, source, a browser binding, 10
///    minutes); the flow is kept as a row;
/// 2. ``start(ticket:)``: the browser opens it (once: a second opening is refused), gets the
///    binding as a cookie, and goes on to Canvas's `/login/oauth2/auth` with the ticket as
///    `state`;
/// 3. ``finish(_:)``: Canvas sends the browser back with a code; with the same browser's cookie,
///    the code is exchanged at `/login/oauth2/token` (client id and secret as form fields). The
///    grant is **not** stored for anyone yet: it waits, sealed, for at most 10 minutes, and the
///    browser lands on the web app (or the flow's `returnTo`) with `#canvas-connect=CODE`;
/// 4. ``complete(code:accountID:)``: the owner's signed-in app trades the code for the stored
///    account. Any other account gets 404, and the grant is dropped and revoked at Canvas: a
///    link that one student sent another never attaches the other's Canvas to the sender.
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
    let transactions: any TransactionRunner
    let flows: any CanvasOAuthFlowStoring
    /// Where the gateway is reached from browsers; nil turns the flow off.
    let publicURL: URL?

    /// How long a flow may take, from the app's request to Canvas's callback.
    public static let flowLifetime: TimeInterval = 600
    /// How long Canvas's grant waits for its owner's app to complete it.
    public static let completionLifetime: TimeInterval = 600
    /// The most flows one student may have waiting at once.
    public static let flowsPerStudent = 5
    /// The hourly chore that drops flows nobody finished, revoking their grants at Canvas.
    public static let pruneFlows = JobKind<NoPayload>("gradebook.prune-oauth-flows")
    static let ticketContext = VaultContext(table: "gradebook_oauth_flows", rowID: 0, owner: 0)
    static let grantContext = VaultContext(table: "gradebook_oauth_flows", rowID: 1, owner: 0)

    public init(
        sources: GradebookSourceService, accounts: GradebookAccountService, transport: UpstreamTransport, vault: any SecretSealer,
        jobs: any JobEnqueuing, clock: any GatewayClock, transactions: any TransactionRunner, flows: any CanvasOAuthFlowStoring, publicURL: URL?
    ) {
        self.sources = sources
        self.accounts = accounts
        self.transport = transport
        self.vault = vault
        self.jobs = jobs
        self.clock = clock
        self.transactions = transactions
        self.flows = flows
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

    /// The URL the app opens in a browser to connect `sourceID`'s Canvas for `owner`; the
    /// browser lands at `returnTo` (a path on the gateway, the web app's `/` by default) with
    /// `#canvas-connect=CODE`.
    public func begin(owner: Int64, sourceID: Int64, returnTo: String? = nil) async throws -> URL {
        guard let publicURL else { throw GradebookError.oauthNotConfigured("The gateway has no public URL (GATEWAY_PUBLIC_URL) for Canvas to send students back to") }
        guard let landing = CanvasOAuth.landingPath(returnTo) else {
            throw GradebookError.invalid(field: "returnTo", message: "returnTo must be a path on this gateway, such as /app/canvas.")
        }
        let source = try await sources.source(id: sourceID)
        guard source.kind == .canvas else {
            throw GradebookError.invalid(field: "sourceId", message: "Source \(sourceID) is not a Canvas source.")
        }
        guard try await sources.developerKey(of: source) != nil else {
            throw GradebookError.oauthNotConfigured("\(source.name) (source \(source.id)) has no developer key; connect with a personal access token instead")
        }
        let now = clock.now()
        let ticket = CanvasOAuth.Ticket(owner: owner, source: source.id, binding: Self.randomToken(), expires: now.addingTimeInterval(Self.flowLifetime))
        let sealed = try seal(ticket)
        let flow = CanvasOAuthFlow(
            key: Self.hash(ticket.binding), ownerAccountID: owner, sourceID: source.id, returnTo: landing, expiresAt: ticket.expires
        )
        try await transactions.write { [flows] db in
            guard try flows.liveFlows(owner: owner, now: now, in: db) < Self.flowsPerStudent else {
                throw GradebookError.tooManyConnections(retryAfterSeconds: Int(Self.flowLifetime))
            }
            try flows.insert(flow, in: db)
        }
        var components = URLComponents(url: Self.address("v1/gradebook/oauth/start", under: publicURL), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "ticket", value: sealed)]
        return components.url!
    }

    /// Where the browser goes from the start address, and the binding cookie's value.
    public struct Start: Sendable {
        public let location: URL
        public let binding: String
    }

    /// The start address opened in a browser: once, within the flow's lifetime.
    public func start(ticket sealed: String) async throws -> Start {
        let now = clock.now()
        guard let publicURL, let ticket = open(sealed), ticket.expires > now else {
            throw GradebookError.invalid(field: "ticket", message: "The link expired or is not from this gateway; start connecting again from the app.")
        }
        let opened = try await transactions.write { [flows] db in try flows.markStarted(key: Self.hash(ticket.binding), at: now, in: db) }
        guard opened else {
            throw GradebookError.invalid(field: "ticket", message: "This link was opened already; it works once. Start connecting again from the app.")
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

    /// Finishes the browser's part: on success the flow's landing page with
    /// `#canvas-connect=CODE`, for the owner's app to complete; otherwise the web app's page
    /// that says why (`#/grades?canvas=<why not>`). Never throws: the browser always lands
    /// somewhere that explains.
    public func finish(_ callback: Callback) async -> URL {
        let base = publicURL.map { Self.address("", under: $0).absoluteString } ?? "/"
        do {
            let (landing, code) = try await connect(callback)
            let origin = publicURL.map { Self.address(String(landing.dropFirst()), under: $0).absoluteString } ?? landing
            return URL(string: origin + "#canvas-connect=" + code)!
        } catch let failure as CanvasOAuth.Failure {
            return URL(string: base + "#/grades?canvas=\(failure.rawValue)")!
        } catch {
            return URL(string: base + "#/grades?canvas=\(CanvasOAuth.Failure.unavailable.rawValue)")!
        }
    }

    /// The callback's checks and the code exchange; the grant kept pending on the flow. The
    /// landing path and the completion code.
    func connect(_ callback: Callback) async throws -> (String, String) {
        guard let sealed = callback.state, let ticket = open(sealed), ticket.expires > clock.now(), let publicURL else {
            throw CanvasOAuth.Failure.expired
        }
        guard let binding = callback.binding, constantTimeEquals(Array(binding.utf8), Array(ticket.binding.utf8)) else { throw CanvasOAuth.Failure.otherBrowser }
        let key = Self.hash(ticket.binding)
        guard let flow = try await transactions.read({ [flows] db in try flows.flow(key: key, in: db) }), flow.startedAt != nil, flow.pending == nil else {
            throw CanvasOAuth.Failure.expired
        }
        if callback.error != nil { throw CanvasOAuth.Failure.denied }
        guard let code = callback.code, (1...2048).contains(code.utf8.count) else { throw CanvasOAuth.Failure.refused }
        let source = try await sources.source(id: ticket.source)
        guard let developerKey = try await sources.developerKey(of: source) else { throw CanvasOAuth.Failure.unavailable }
        let answer = try await token(source, key: developerKey, form: [
            ("grant_type", "authorization_code"), ("client_id", developerKey.id), ("client_secret", developerKey.secret),
            ("redirect_uri", Self.callback(publicURL).absoluteString), ("code", code),
        ])
        guard let refreshToken = answer.refreshToken, let user = answer.user else { throw CanvasOAuth.Failure.unavailable }
        let grant = CanvasOAuth.Grant(
            accessToken: answer.accessToken, refreshToken: refreshToken,
            expiresAt: answer.expiresIn.map { clock.now().addingTimeInterval(TimeInterval($0)) }
        )
        let completion = Self.randomToken()
        let pending = CanvasOAuthFlow.Pending(
            codeHash: Self.hash(completion), sealedGrant: try sealGrant(grant), canvasUserID: user.id.value,
            canvasUserName: user.name.map { String($0.prefix(200)) }, completesBy: clock.now().addingTimeInterval(Self.completionLifetime)
        )
        let kept = try await transactions.write { [flows] db in try flows.setPending(key: key, pending, in: db) }
        guard kept else {
            await revoke(grant, source: source, caller: .gateway)
            throw CanvasOAuth.Failure.expired
        }
        return (flow.returnTo, completion)
    }

    /// A completed connection: the stored account and the Canvas user it reads.
    public struct Completed: Sendable {
        public let account: GradebookAccountInfo
        public let canvasUserID: String
        public let canvasUserName: String?
    }

    /// The owner's app completes a connection with the code its browser landed with. The code
    /// works once, within ``completionLifetime``, and only for the account that began the flow:
    /// for any other it is ``GradebookError/accountNotFound`` (404), and the grant is dropped
    /// and revoked at Canvas.
    public func complete(code: String, accountID: Int64) async throws -> Completed {
        guard (16...128).contains(code.utf8.count) else { throw GradebookError.accountNotFound }
        let now = clock.now()
        guard let flow = try await transactions.write({ [flows] db in try flows.takePending(codeHash: Self.hash(code), in: db) }),
            let pending = flow.pending
        else { throw GradebookError.accountNotFound }
        let source = try await sources.source(id: flow.sourceID)
        guard let grant = try? openGrant(pending.sealedGrant) else { throw GradebookError.vaultUnavailable }
        guard flow.ownerAccountID == accountID, pending.completesBy > now else {
            await revoke(grant, source: source, caller: .student(accountID: flow.ownerAccountID))
            throw GradebookError.accountNotFound
        }
        let secret = try Self.encode(grant)
        // The same Canvas user connected again (after Canvas stopped renewing it): the account
        // keeps its id, snapshot and settings, with the new grant.
        if try await accounts.renew(owner: accountID, sourceID: source.id, username: pending.canvasUserID, secret: secret),
            let renewed = try await accounts.accounts(accountID: accountID).first(where: { $0.sourceID == source.id && $0.username == pending.canvasUserID })
        {
            return Completed(account: renewed, canvasUserID: pending.canvasUserID, canvasUserName: pending.canvasUserName)
        }
        let stored = try await accounts.store(accountID: accountID, sourceID: source.id, username: pending.canvasUserID, secret: secret, kind: .oauth)
        return Completed(account: stored, canvasUserID: pending.canvasUserID, canvasUserName: pending.canvasUserName)
    }

    /// Drops the flows that are over (expired, or a grant nobody completed in time), revoking
    /// their grants at Canvas; how many.
    @discardableResult
    public func pruneFlows() async throws -> Int {
        var dropped = 0
        while true {
            let now = clock.now()
            let over = try await transactions.write { [flows] db in try flows.takeFinished(at: now, limit: 200, in: db) }
            for flow in over {
                guard let pending = flow.pending, let grant = try? openGrant(pending.sealedGrant),
                    let source = try? await sources.source(id: flow.sourceID)
                else { continue }
                await revoke(grant, source: source, caller: .student(accountID: flow.ownerAccountID))
            }
            dropped += over.count
            if over.count < 200 { return dropped }
        }
    }

    /// Registers the hourly ``pruneFlows()``.
    public func register(in registry: JobRegistry) throws {
        let service = self
        try registry.registerHousekeeping(Self.pruneFlows) { _ = try await service.pruneFlows() }
    }

}

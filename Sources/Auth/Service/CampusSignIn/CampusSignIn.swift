public import Contracts
public import Foundation
public import GatewayCore
public import Logging
public import Storage

/// Campus sign-in: the gateway as an OpenID Connect relying party for browsers (authorization
/// code with PKCE, bound to the browser that started it) and as a resource server for apps that
/// sign in with the provider themselves (its access tokens as bearer tokens).
///
/// A campus identity is `(issuer, sub)`, never an email address. The first sign-in makes an
/// account without a password; every browser sign-in sets a campus account's role from the
/// provider's groups. Accounts with a password (made by the CLI or an admin, or linked by an
/// admin) keep their role. See docs/security.md, "Campus sign-in".
public struct CampusSignIn: Sendable {
    public let provider: OpenIDProvider
    let auth: AuthService
    let store: any CampusSignInStoring
    let logger: Logger

    public var settings: CampusSignInSettings { provider.settings }
    var transactions: any TransactionRunner { auth.transactions }
    var clock: any GatewayClock { auth.clock }

    public init(provider: OpenIDProvider, auth: AuthService, store: any CampusSignInStoring, logger: Logger) {
        self.provider = provider
        self.auth = auth
        self.store = store
        self.logger = logger
    }

    /// A started sign-in: where to send the browser, and the value of the cookie that binds the
    /// flow to it.
    public struct Start: Sendable {
        public let location: URL
        public let browserBinding: String
    }

    /// Starts a browser sign-in that ends at `returnTo` (a path on the gateway).
    public func start(returnTo: String) async throws -> Start {
        let metadata = try await provider.metadata()
        let state = SignInSecrets.random(), nonce = SignInSecrets.random(), verifier = SignInSecrets.random()
        let binding = SignInSecrets.random()
        let flow = CampusSignInFlow(
            stateHash: SignInSecrets.hash(state), browserHash: SignInSecrets.hash(binding), nonce: nonce, codeVerifier: verifier,
            returnTo: returnTo, expiresAt: clock.now().addingTimeInterval(settings.flowLifetime)
        )
        let now = clock.now(), bound = settings.maximumLiveFlows
        try await transactions.write { [store] db in
            // However many networks start sign-ins, the flows waiting for their callbacks stay
            // bounded: past the bound a start waits for flows to end.
            guard try store.liveFlows(now: now, limit: bound, in: db) < bound else { throw AuthError.busy(retryAfterSeconds: 30) }
            try store.insertFlow(flow, in: db)
        }
        var components = URLComponents(url: metadata.authorizationEndpoint, resolvingAgainstBaseURL: false)!
        components.queryItems = (components.queryItems ?? []) + [
            URLQueryItem(name: "response_type", value: "code"),
            URLQueryItem(name: "client_id", value: settings.clientID),
            URLQueryItem(name: "redirect_uri", value: settings.redirectURI),
            URLQueryItem(name: "scope", value: "openid email profile"),
            URLQueryItem(name: "state", value: state),
            URLQueryItem(name: "nonce", value: nonce),
            URLQueryItem(name: "code_challenge", value: SignInSecrets.challenge(forVerifier: verifier)),
            URLQueryItem(name: "code_challenge_method", value: "S256"),
        ]
        return Start(location: components.url!, browserBinding: binding)
    }

    /// What the callback received from the provider, as the browser brought it.
    public struct Callback: Sendable {
        public var code: String?
        public var state: String?
        /// The provider's `error` (the person declined, or the provider refused).
        public var error: String?
        /// The sign-in cookie the browser sent back.
        public var browserBinding: String?

        public init(code: String?, state: String?, error: String?, browserBinding: String?) {
            self.code = code
            self.state = state
            self.error = error
            self.browserBinding = browserBinding
        }
    }

    /// How a browser sign-in ended: where to send the browser, and (when it ended with a code)
    /// the value of the cookie that makes the code redeemable by this browser only.
    public struct Finish: Sendable {
        /// `{returnTo}#signin={code}` or `{returnTo}#signin-error={kind}`.
        public let location: String
        /// The code cookie's value, nil when the sign-in failed.
        public let codeBinding: String?

        init(_ location: String, codeBinding: String? = nil) {
            self.location = location
            self.codeBinding = codeBinding
        }
    }

    /// Finishes a browser sign-in: the path and fragment to send the browser to,
    /// `{returnTo}#signin={code}` or `{returnTo}#signin-error={kind}`, and the cookie that binds
    /// the code to this browser. Never throws: every failure is logged with its cause and ends
    /// at an error fragment.
    public func finish(_ callback: Callback) async -> Finish {
        // The state is taken (deleted) whatever happens next: a replayed callback finds nothing.
        guard let state = callback.state, state.utf8.count <= 256,
            let flow = try? await transactions.write({ [store] db in try store.takeFlow(stateHash: SignInSecrets.hash(state), in: db) })
        else {
            logger.notice("campus sign-in refused", metadata: ["reason": "unknown or used state"])
            return Finish(Self.location(ReturnPath.home, failure: .state))
        }
        let returnTo = flow.returnTo
        guard flow.expiresAt > clock.now() else {
            logger.notice("campus sign-in refused", metadata: ["reason": "the sign-in took too long"])
            return Finish(Self.location(returnTo, failure: .state))
        }
        guard let binding = callback.browserBinding, constantTimeEquals(SignInSecrets.hash(binding), flow.browserHash) else {
            logger.notice("campus sign-in refused", metadata: ["reason": "the callback came without the browser's sign-in cookie"])
            return Finish(Self.location(returnTo, failure: .state))
        }
        if let error = callback.error {
            logger.notice("campus sign-in refused", metadata: ["reason": "the provider answered \(String(error.prefix(64)))"])
            return Finish(Self.location(returnTo, failure: .providerRefused))
        }
        guard let code = callback.code, !code.isEmpty, code.utf8.count <= 2048 else {
            logger.notice("campus sign-in refused", metadata: ["reason": "the callback has no code"])
            return Finish(Self.location(returnTo, failure: .providerRefused))
        }
        do {
            let idToken = try await provider.exchange(code: code, verifier: flow.codeVerifier)
            let claims = try await provider.verifySignature(idToken)
            try ClaimCheck.idToken(
                claims, issuers: settings.tokenIssuers, clientID: settings.clientID, nonce: flow.nonce, now: clock.now(),
                skew: settings.clockSkew
            )
            let account = try await signIn(claims)
            let signInCode = SignInSecrets.random(), codeBinding = SignInSecrets.random()
            let expires = clock.now().addingTimeInterval(settings.signInCodeLifetime)
            try await transactions.write { [store] db in
                try store.insertCode(
                    hash: SignInSecrets.hash(signInCode), browserHash: SignInSecrets.hash(codeBinding), accountID: account.id ?? 0,
                    expiresAt: expires, in: db
                )
            }
            logger.info("campus sign-in", metadata: ["account": "\(account.id ?? 0)", "role": "\(account.role.rawValue)"])
            return Finish(returnTo + "#signin=" + signInCode, codeBinding: codeBinding)
        } catch let error as ProviderError {
            logger.notice("campus sign-in refused", metadata: ["reason": "\(error)"])
            if case .exchangeRefused = error { return Finish(Self.location(returnTo, failure: .providerRefused)) }
            return Finish(Self.location(returnTo, failure: .tokenInvalid))
        } catch let error as ClaimProblem {
            logger.notice("campus sign-in refused", metadata: ["reason": "ID token: \(error)"])
            return Finish(Self.location(returnTo, failure: .tokenInvalid))
        } catch AuthError.invalidCredentials {
            logger.notice("campus sign-in refused", metadata: ["reason": "the account is disabled"])
            return Finish(Self.location(returnTo, failure: .providerRefused))
        } catch {
            logger.error("campus sign-in failed", metadata: ["error": "\(error)"])
            return Finish(Self.location(returnTo, failure: .providerRefused))
        }
    }

    static func location(_ returnTo: String, failure: CampusSignInFailure) -> String {
        returnTo + "#signin-error=" + failure.rawValue
    }

    /// Trades a one-time sign-in code for a gateway token, like a password sign-in, in the
    /// browser the callback handed it to: `browserBinding` is that browser's code cookie. A used,
    /// expired or unknown code (or one of an account disabled since) is
    /// ``AuthError/invalidSignInCode``; a code presented without its browser's cookie is
    /// ``AuthError/signInNotYours`` and is spent, so the link that carried it is dead.
    public func redeem(signInCode code: String, browserBinding: String?, lifetimeMinutes: Int?) async throws -> AuthService.IssuedToken {
        let minutes = try auth.tokenMinutes(lifetimeMinutes)
        guard !code.isEmpty, code.utf8.count <= 128 else { throw AuthError.invalidSignInCode }
        let now = clock.now()
        let presented = browserBinding.flatMap { $0.utf8.count <= 128 ? SignInSecrets.hash($0) : nil }
        // The code is taken (and the take committed) before the browser is judged: a code that
        // reached another browser is dead for everyone.
        let (account, yours) = try await transactions.write { [store, auth] db -> (Account?, Bool) in
            guard let kept = try store.takeCode(hash: SignInSecrets.hash(code), now: now, in: db) else { return (nil, true) }
            guard let expected = kept.browserHash, let presented, constantTimeEquals(presented, expected) else { return (nil, false) }
            return (try auth.store.find(id: kept.accountID, in: db), true)
        }
        guard yours else {
            logger.notice("campus sign-in code refused", metadata: ["reason": "presented by a browser it was not handed to"])
            throw AuthError.signInNotYours
        }
        guard let account, !account.disabled else { throw AuthError.invalidSignInCode }
        return try await auth.issueToken(for: account, minutes: minutes)
    }

    /// The identity behind a provider's access token, or nil when the token is not a JWT this
    /// provider signed for this API (the caller answers 401). Its account is the one a browser
    /// sign-in of the same `sub` reaches (made now if there is none).
    public func identity(accessToken token: String) async -> Identity? {
        do {
            let claims = try await provider.verifySignature(token)
            try ClaimCheck.accessToken(
                claims, type: OpenIDProvider.type(of: token), issuers: settings.tokenIssuers, audience: settings.audience,
                clientID: settings.clientID, now: clock.now(), skew: settings.clockSkew
            )
            return try await signIn(claims, fromAccessToken: true).identity
        } catch {
            logger.debug("provider access token refused", metadata: ["reason": "\(error)"])
            return nil
        }
    }

    /// Deletes flows and sign-in codes that expired (run with the hourly token pruning).
    public func prune() async throws {
        let now = clock.now()
        try await transactions.write { [store] db in _ = try store.prune(before: now, in: db) }
    }

    /// Links an existing account (a student with a password and a history) to a campus identity
    /// of the configured provider.
    public func link(accountID: Int64, subject: String) async throws -> CampusIdentity {
        guard !subject.isEmpty, subject.count <= 255 else { throw AuthError.invalidField("subject", message: "The subject must be 1 to 255 characters.") }
        let identity = CampusIdentity(issuer: settings.issuerIdentifier, subject: subject, accountID: accountID, email: nil, emailVerified: false, name: nil)
        let now = clock.now()
        try await transactions.write { [store, auth] db in
            guard try auth.store.find(id: accountID, in: db) != nil else { throw AuthError.accountNotFound(accountID) }
            if let linked = try store.identity(accountID: accountID, in: db), linked.subject != subject || linked.issuer != identity.issuer {
                throw AuthError.identityLinked
            }
            try store.save(identity, at: now, in: db)
        }
        logger.info("campus identity linked", metadata: ["account": "\(accountID)"])
        return identity
    }

    /// The account of the identity in `claims` (made on its first sign-in), with a campus
    /// account's role set from the groups. A disabled account is ``AuthError/invalidCredentials``.
    func signIn(_ claims: ProviderClaims, fromAccessToken: Bool = false) async throws -> Account {
        let issuer = settings.issuerIdentifier, subject = claims.subject ?? ""
        let groupsClaim = settings.groupsClaim
        // An access token often carries no groups: then the role stays as the last sign-in set it.
        let role: Role? = fromAccessToken && !claims.hasGroups(claim: groupsClaim)
            ? nil
            : settings.adminGroup.map { claims.groups(claim: groupsClaim).contains($0) ? .admin : .student } ?? .student
        if fromAccessToken {
            // An app sends its access token with every request: a known identity whose role
            // stands is one indexed read, no write.
            let known = try await transactions.readPreferringInline { [store, auth] db -> Account? in
                guard let identity = try store.identity(issuer: issuer, subject: subject, in: db) else { return nil }
                return try auth.store.find(id: identity.accountID, in: db)
            }
            if let known {
                guard !known.disabled else { throw AuthError.invalidCredentials }
                if role == nil || role == known.role || known.hasPassword { return known }
            }
        }
        let email = claims.email.flatMap { claims.emailVerified ? $0.lowercased() : nil }
        let now = clock.now()
        let candidates = CampusUsername.candidates(preferred: claims.preferredUsername, email: claims.email, issuer: issuer, subject: subject)
        let account = try await transactions.write { [store, auth] db -> Account in
            var account: Account
            if let known = try store.identity(issuer: issuer, subject: subject, in: db), let existing = try auth.store.find(id: known.accountID, in: db) {
                account = existing
                if !account.hasPassword, let role, role != account.role, !account.disabled {
                    try auth.store.setStatus(accountID: known.accountID, disabled: account.disabled, role: role, in: db)
                    account.role = role
                }
            } else {
                account = try Self.newAccount(candidates: candidates, email: email, role: role ?? .student, now: now, store: auth.store, in: db)
            }
            guard !account.disabled else { return account }
            try store.save(
                CampusIdentity(
                    issuer: issuer, subject: subject, accountID: account.id ?? 0, email: claims.email, emailVerified: claims.emailVerified,
                    name: claims.name
                ),
                at: now, in: db
            )
            return account
        }
        guard !account.disabled else { throw AuthError.invalidCredentials }
        return account
    }

    /// A campus account: the first free name of `candidates`, the email when it is verified and
    /// no other account has it, and no password.
    static func newAccount(
        candidates: [String], email: String?, role: Role, now: Date, store: any AccountStoring, in db: any StoreTransaction
    ) throws -> Account {
        let freeEmail = try email.flatMap { try store.find(email: $0, in: db) == nil ? $0 : nil }
        for name in candidates where try store.find(username: name, in: db) == nil {
            return try store.insert(Account(username: name, email: freeEmail, passwordHash: "", role: role, createdAt: now), in: db)
        }
        throw AuthError.accountExists(field: "username")
    }
}

/// What a browser learns of a failed sign-in (`#signin-error=`); the log says the rest.
public enum CampusSignInFailure: String, Sendable {
    /// The flow is unknown, used, expired or was started in another browser.
    case state
    /// The provider (or the gateway, for a disabled account) refused the sign-in.
    case providerRefused = "provider-refused"
    /// The ID token's signature or claims are wrong.
    case tokenInvalid = "token-invalid"
}

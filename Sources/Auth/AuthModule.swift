public import ModuleKit
public import Contracts
public import HTTPClient
public import Crypto
public import Foundation
public import GatewayCore
public import Jobs
public import Logging
public import Storage

/// Accounts, passwords, tokens and roles, built in one place from what the module needs from
/// outside: a transaction runner and its account store, the password hasher, a clock, the
/// settings, and the revocations other modules want run when an account's credentials change
/// (Scheduling's calendar feeds). It gives back the service, its routes and its housekeeping.
public struct AuthModule: JobRunningModule {
    /// The module's tables (its migrations are the store drivers').
    public static var schema: (any ModuleSchema.Type)? { AuthSchema.self }

    /// What a deployment configured for sign-in.
    public struct Settings: Sendable {
        public var tokens: AuthService.Settings
        public var loginThrottle: LoginThrottle.Limits
        /// Sign-ups one address may make per hour.
        public var signUpsPerHour: Int

        public init(tokens: AuthService.Settings, loginThrottle: LoginThrottle.Limits, signUpsPerHour: Int) {
            self.tokens = tokens
            self.loginThrottle = loginThrottle
            self.signUpsPerHour = signUpsPerHour
        }
    }

    /// Every hour, tokens that expired or were revoked more than a day ago are deleted, so the
    /// table holds live tokens and a day of history (for "why was I signed out" questions); the
    /// sign-in throttle's entries past their window go too.
    public static let pruneTokens = JobKind<NoPayload>("auth.prune-tokens")

    public let service: AuthService
    /// Campus sign-in, when a provider is configured.
    public let campus: CampusSignIn?
    /// The audit log of admin and operator writes; nil when the module runs without it (tests).
    public var audit: AuditService?

    /// What campus sign-in needs from outside: its settings, its store on the database, and the
    /// HTTP client that reaches the provider.
    public struct CampusWiring: Sendable {
        public var settings: CampusSignInSettings
        public var store: any CampusSignInStoring
        public var client: any HTTPClient

        public init(settings: CampusSignInSettings, store: any CampusSignInStoring, client: any HTTPClient) {
            self.settings = settings
            self.store = store
            self.client = client
        }
    }

    /// The module on `store`. The server key (made once by the migration) keys the sign-in
    /// throttle, whose counts `signInLedger` keeps for every instance, and token hashes.
    public static func live(
        transactions: any TransactionRunner, store: any AccountStoring, signInLedger: any SignInLedgerStoring, hasher: PasswordHasher,
        clock: any GatewayClock, settings: Settings, revocations: [any CredentialRevocation], campus: CampusWiring? = nil, logger: Logger,
        audit: (any AuditStoring)? = nil
    ) throws -> AuthModule {
        let serverKey = SymmetricKey(data: try transactions.readAtStartup { db in try store.serverKey(in: db) })
        let throttle = SharedSignInThrottle(
            rules: LoginThrottle(limits: settings.loginThrottle, key: serverKey), transactions: transactions, ledger: signInLedger
        )
        let service = AuthService(
            transactions: transactions, store: store, hasher: hasher, throttle: throttle, clock: clock, settings: settings.tokens,
            serverKey: serverKey,
            signUps: SharedSignUpLimit(limit: settings.signUpsPerHour, transactions: transactions, ledger: signInLedger, key: serverKey),
            revocations: revocations,
            logger: logger
        )
        let campusSignIn = campus.map { wiring in
            CampusSignIn(
                provider: OpenIDProvider(settings: wiring.settings, client: wiring.client, clock: clock, logger: logger), auth: service,
                store: wiring.store, logger: logger
            )
        }
        var module = AuthModule(service: service, campus: campusSignIn)
        module.audit = audit.map { AuditService(transactions: transactions, store: $0, clock: clock, logger: logger) }
        return module
    }

    /// Registers the hourly token pruning.
    public func register(in registry: JobRegistry) throws {
        let service = self.service, campus = self.campus, audit = self.audit
        try registry.registerHousekeeping(Self.pruneTokens) {
            _ = try await service.pruneTokens(olderThan: 24 * 3600)
            // Audit records older than 400 days; none is deleted any other way.
            try await audit?.prune()
            try await campus?.prune()
            if let shared = service.throttle as? SharedSignInThrottle {
                // Sign-up entries share the ledger: none is pruned before its own window ends.
                let keep = (service.signUps as? SharedSignUpLimit)?.window ?? 0
                _ = try await shared.prune(now: service.clock.now(), keepingAtLeast: keep)
            }
        }
    }

    /// The module's HTTP routes (`/v1/auth/...`, `/v1/me`, `/v1/admin/accounts`).
    public var routes: AuthRoutes { AuthRoutes(service: service, campus: campus, audit: audit) }

    /// The authenticator for route groups: gateway tokens, HTTP Basic, and the provider's
    /// access tokens when campus sign-in is configured.
    public var authenticator: TokenAuthenticator { TokenAuthenticator(service: service, campus: campus) }

    /// Other modules' view of accounts (Registration's SDSU sign-ins), with credentials cached
    /// for `credentialCacheSeconds`.
    public func accountDirectory(credentialCacheSeconds: TimeInterval) -> AuthAccountDirectory {
        AuthAccountDirectory(service: service, credentialCacheSeconds: credentialCacheSeconds)
    }
}

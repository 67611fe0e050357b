public import ModuleKit
public import Foundation
public import Contracts
public import GatewayCore
public import GatewayHTTP
public import HTTPClient
public import Jobs
public import Storage
public import Logging

/// Upstream gradebooks, built in one place from what the module needs from outside: a
/// transaction runner and its stores, the vault that seals passwords, the job enqueuer (grade
/// polls queue `push.grade-changed`), a clock and the upstream settings. It gives back the
/// services, the routes, the job handlers and the sealed rows that key rotation walks.
public struct GradebookModule: JobRunningModule {
    /// The module's tables (its migrations are the store drivers').
    public static var schema: (any ModuleSchema.Type)? { GradebookSchema.self }

    /// How the gateway talks to upstream gradebooks.
    public struct Settings: Sendable {
        /// How long one upstream request may take.
        public var timeoutSeconds: Int
        /// How long answers are cached per user and path (0: not cached).
        public var cacheSeconds: Int
        /// An extra certificate authority to trust (a campus's own).
        public var additionalCAFile: String?
        /// The largest upstream file the gradebook routes pass on.
        public var maxFileBytes: Int
        /// Addresses only development sources (the simulator) may use: loopback and private
        /// networks. Other sources reach public addresses only.
        public var developmentDestinations: DestinationAllowList
        /// Where browsers reach the gateway (`GATEWAY_PUBLIC_URL`): Canvas's OAuth2 flow sends
        /// students back under it. Nil: connecting with OAuth2 is off.
        public var publicURL: URL?

        public init(
            timeoutSeconds: Int, cacheSeconds: Int, additionalCAFile: String?, maxFileBytes: Int, developmentDestinations: DestinationAllowList,
            publicURL: URL? = nil
        ) {
            self.publicURL = publicURL
            self.timeoutSeconds = timeoutSeconds
            self.cacheSeconds = cacheSeconds
            self.additionalCAFile = additionalCAFile
            self.maxFileBytes = maxFileBytes
            self.developmentDestinations = developmentDestinations
        }
    }

    public let sources: GradebookSourceService
    public let accounts: GradebookAccountService
    public let gradebooks: GradebookService
    /// QuickHAC devices' gradebook accounts (Push's ``DeviceGradebookAccounts``).
    public let deviceAccounts: DeviceAccountService
    /// One "my grades" across every source (`/v1/me/grades`).
    public let myGrades: MyGradesService
    /// Connecting Canvas accounts with the campus's developer key, and renewing their access.
    public let canvasOAuth: CanvasOAuthService
    public let poller: GradePoller
    public let retention: SnapshotRetention
    /// Every sealed password, for the vault's key rotation.
    public let vaultRows: [any VaultRows]

    /// The module on `stores`.
    public static func live(
        transactions: any TransactionRunner, stores: GradebookStores, vault: any SecretSealer, jobs: any JobEnqueuing,
        clock: any GatewayClock, settings: Settings, logger: Logger
    ) -> GradebookModule {
        let timeout = Duration.seconds(Int64(max(1, settings.timeoutSeconds)))
        let transport = UpstreamTransport(
            publicClient: CurlHTTPClient(configuration: .init(
                defaultTimeout: timeout, maxRedirects: 0, additionalCAFile: settings.additionalCAFile, logger: logger
            )),
            // Only for sources an admin marked as development sources (the simulator).
            developmentClient: CurlHTTPClient(configuration: .init(
                defaultTimeout: timeout, maxRedirects: 0, additionalCAFile: settings.additionalCAFile,
                allowedDestinations: settings.developmentDestinations, logger: logger
            )),
            timeout: timeout, clock: clock
        )
        let upstream = CachedUpstream(transport: transport, cacheLifetime: .seconds(Int64(max(0, settings.cacheSeconds))))
        let sources = GradebookSourceService(
            transactions: transactions, store: stores.sources, health: stores.sourceHealth, clock: clock, vault: vault
        )
        let accounts = GradebookAccountService(
            transactions: transactions, store: stores.accounts, sources: sources, vault: vault, clock: clock,
            verifier: { credentials, source in
                try await GradebookService.adapter(for: source.kind, upstream: upstream).verify(credentials, source: source)
            },
            signIn: { credentials, source in
                try await MoodleAdapter(transport: transport).token(
                    username: credentials.username, password: credentials.password, caller: credentials.caller, source: source
                )
            }
        )
        let gradebooks = GradebookService(sources: sources, upstream: upstream, accounts: accounts, maxFileBytes: settings.maxFileBytes)
        let deviceAccounts = DeviceAccountService(
            transactions: transactions, store: stores.deviceAccounts, sources: sources, vault: vault, clock: clock,
            adapter: CalPolyAdapter(upstream: upstream)
        )
        let canvasOAuth = CanvasOAuthService(
            sources: sources, accounts: accounts, transport: transport, vault: vault, jobs: jobs, clock: clock, transactions: transactions,
            flows: stores.oauthFlows, publicURL: settings.publicURL
        )
        return GradebookModule(
            sources: sources, accounts: accounts, gradebooks: gradebooks, deviceAccounts: deviceAccounts,
            myGrades: MyGradesService(accounts: accounts, gradebooks: gradebooks, canvasOAuth: canvasOAuth, clock: clock),
            canvasOAuth: canvasOAuth,
            poller: GradePoller(
                transactions: transactions, accounts: deviceAccounts, ownedAccounts: accounts, gradebooks: gradebooks, canvasOAuth: canvasOAuth, jobs: jobs,
                snapshots: stores.snapshots, health: stores.sourceHealth, clock: clock
            ),
            retention: SnapshotRetention(transactions: transactions, snapshots: stores.snapshots, clock: clock),
            vaultRows: [
                GradebookAccountVaultRows(transactions: transactions, store: stores.accounts),
                DeviceAccountVaultRows(transactions: transactions, store: stores.deviceAccounts),
                GradebookSourceSecretVaultRows(transactions: transactions, store: stores.sources),
            ]
        )
    }

    /// Registers the grade polls (`gradebook.poll`, `gradebook.poll-account`) and the hourly
    /// snapshot pruning.
    public func register(in registry: JobRegistry) throws {
        poller.register(in: registry)
        try retention.register(in: registry)
        try canvasOAuth.register(in: registry)
    }

    /// The module's HTTP routes (`/v1/gradebook/...`, `/v1/admin/gradebook/...` and the Cal
    /// Poly protocol).
    public var routes: GradebookRoutes { GradebookRoutes(gradebooks: gradebooks, sources: sources, accounts: accounts, myGrades: myGrades, canvasOAuth: canvasOAuth) }

    /// Errors under the Cal Poly protocol's paths answer in its own form.
    public var errorRenderers: [ErrorRenderer] { [GradebookRoutes.errorRenderer] }
}

import GRDB
import Contracts
import Crypto
import UnixSignals
public import GatewayHTTP
public import Auth
public import Catalog
import Foundation
public import GatewayCore
public import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import NIOSSL
public import Gradebook
import GradebookSimulator
import HTTPClient
public import Jobs
public import Push
public import Scheduling
public import Logging
public import Registration
public import ServiceLifecycle
public import Storage
public import Web

/// The composition root: the only place that knows every module. It opens the database,
/// builds the services, mounts every module's routes behind the shared middleware, and runs
/// the HTTP server and background services under one service group.
public struct GatewayApplication: Sendable {
    /// Schema modules in dependency order.
    public static let schemaModules: [any SchemaModule.Type] = [
        StorageSchema.self, AuthSchema.self, JobsSchema.self, CatalogSchema.self, RegistrationSchema.self, SchedulingSchema.self, GradebookSchema.self,
        PushSchema.self,
    ]

    public let configuration: GatewayConfiguration
    public let database: GatewayDatabase
    public let clock: any GatewayClock
    public let auth: AuthService
    public let catalog: CatalogService
    /// The catalog's academic terms (`/v1/terms`, `/v1/admin/terms`).
    public let terms: TermService
    public let registration: RegistrationService
    /// The schedule builder, saved schedules, calendars and ranking data.
    public let scheduling: SchedulingModule
    public let builds: BuildService
    public let savedSchedules: SavedScheduleService
    public let calendars: CalendarService
    public let ratings: RatingService
    /// Upstream gradebooks: sources, stored accounts (vault) and reading.
    public let gradebookSources: GradebookSourceService
    public let gradebookAccounts: GradebookAccountService
    public let gradebooks: GradebookService
    public let vault: VaultKeyProvider
    /// Devices and notification delivery.
    public let devices: DeviceService
    public let push: PushService
    public let quickHAC: QuickHACService
    public let seatAlerts: SeatAlertService
    public let pushPreferences: PreferenceService
    public let gradebookAlertPreferences: GradebookAlertPreferenceService
    /// The Web Push VAPID keys (`GATEWAY_VAPID_PRIVATE_KEY`; a demo makes its own); nil without.
    public let vapidKeys: VAPIDKeys?
    public let deviceGradebookAccounts: DeviceAccountService
    public let routes: RouteRegistry
    /// The student web app and operator console files (`/`, `/admin/`), read once.
    public let webAssets: WebAssets
    public let logger: Logger
    /// The job system: register handlers and schedules on `jobs.registry`; enqueue with
    /// `JobEnqueuer.enqueue(_:in:now:)` inside your transaction or `jobs.service.enqueue(_:)`.
    public let jobs: JobsRuntime

    /// Opens and migrates the database and builds the module services.
    public init(configuration: GatewayConfiguration, clock: any GatewayClock = SystemClock(), logger: Logger? = nil) throws {
        var logger = logger ?? Logger(label: "campus-gateway")
        logger.logLevel = configuration.logLevel
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        self.database = try GatewayDatabase(path: configuration.databasePath, modules: Self.schemaModules)
        let isNew = try database.isNew()
        try database.migrate()
        try Self.checkDemoMark(database: database, demo: configuration.demo, isNew: isNew)
        let hasher = PasswordHasher(
            parameters: configuration.passwordHashing,
            threads: configuration.passwordHashingThreads,
            maxPending: configuration.passwordHashingQueue
        )
        let schedulingStores = SchedulingStores.sqlite()
        let accountStore = SQLiteAccountStore()
        let serverKey = SymmetricKey(data: try database.pool.read { db in try accountStore.serverKey(in: db) })
        self.auth = AuthService(
            transactions: database, store: accountStore, hasher: hasher, throttle: LoginThrottle(limits: configuration.loginThrottle, key: serverKey),
            clock: clock, settings: configuration.auth, serverKey: serverKey,
            signUps: RateLimit(limit: configuration.signUpsPerHour, window: 3600),
            revocations: [SchedulingModule.credentialRevocation(stores: schedulingStores)], logger: logger
        )
        self.catalog = try CatalogService(
            transactions: database, store: SQLiteCatalogStore(), refreshInterval: configuration.registration.catalogRefreshSeconds
        )
        self.terms = TermService(transactions: database, store: SQLiteTermStore())
        self.registration = RegistrationService(
            transactions: database, stores: .sqlite(catalog: catalog.store), catalog: catalog,
            accounts: AuthAccountDirectory(service: auth, credentialCacheSeconds: configuration.registration.credentialCacheSeconds),
            clock: clock, settings: configuration.registration, logger: logger
        )
        let scheduling = SchedulingModule.live(
            transactions: database, stores: schedulingStores, catalog: catalog, terms: terms,
            registered: RegistrationClassDirectory(service: registration), clock: clock, buildsPerMinute: configuration.buildsPerMinute
        )
        self.scheduling = scheduling
        self.ratings = scheduling.ratings
        self.builds = scheduling.builds
        self.savedSchedules = scheduling.savedSchedules
        self.calendars = scheduling.calendars
        self.vault = try VaultKeyProvider(
            environment: configuration.environment, databasePath: configuration.databasePath, keyFilePath: configuration.vaultKeyFile
        )
        let timeout = Duration.seconds(Int64(max(1, configuration.gradebookTimeoutSeconds)))
        let transport = UpstreamTransport(
            publicClient: CurlHTTPClient(configuration: .init(
                defaultTimeout: timeout, maxRedirects: 0, additionalCAFile: configuration.gradebookCAFile, logger: logger
            )),
            // Only for sources an admin marked as development sources (the simulator).
            developmentClient: CurlHTTPClient(configuration: .init(
                defaultTimeout: timeout, maxRedirects: 0, additionalCAFile: configuration.gradebookCAFile,
                allowedDestinations: Self.developmentDestinations, logger: logger
            )),
            timeout: timeout
        )
        let upstream = CachedUpstream(transport: transport, cacheLifetime: .seconds(Int64(max(0, configuration.gradebookCacheSeconds))))
        self.gradebookSources = GradebookSourceService(transactions: database, clock: clock)
        self.gradebookAccounts = GradebookAccountService(
            transactions: database, sources: gradebookSources, vault: vault, clock: clock,
            verifier: { credentials, source in try await CalPolyAdapter(upstream: upstream).verify(credentials, source: source) }
        )
        self.gradebooks = GradebookService(
            sources: gradebookSources, upstream: upstream, accounts: gradebookAccounts, maxFileBytes: configuration.gradebookMaxFileBytes
        )
        // Webhook secrets and Web Push keys are sealed by the vault, bound to their rows; rows
        // an older server wrote in clear are sealed now, before anything is served.
        let deviceStore = SQLiteDeviceStore(sealer: VaultSecretSealing(vault: vault))
        let sealedAtStart = try deviceStore.sealClearKeys(database: database)
        if sealedAtStart > 0 { logger.notice("push: sealed device keys stored in clear", metadata: ["devices": "\(sealedAtStart)"]) }
        self.devices = DeviceService(
            transactions: database, store: deviceStore, clock: clock, allowInsecureEndpoints: configuration.allowInsecurePushEndpoints,
            allowedDestinations: configuration.pushAllowedDestinations
        )
        // User-supplied endpoints (webhooks, Web Push): public addresses only, unless the operator
        // relaxes it for a demo on one machine. Each lane has its own transfer threads, as many as
        // it may have deliveries in flight (DeliveryLanes), so a slow webhook never holds a
        // thread Web Push or email needs.
        let pushDestinations = (configuration.allowInsecurePushEndpoints ? Self.developmentDestinations : .none)
            .union(configuration.pushAllowedDestinations)
        let pushWorkers = configuration.jobs.limit(of: PushJobs.queue)
        let lanes = DeliveryLanes(configuration: pushWorkers.map { configuration.pushLanes.fitting(workers: $0) } ?? configuration.pushLanes)
        let webhookClient = CurlHTTPClient(configuration: .init(
            threadCount: lanes.configuration.webhook.total, defaultTimeout: .seconds(30), maxRedirects: 0,
            allowedDestinations: pushDestinations, logger: logger
        ))
        let webPushClient = CurlHTTPClient(configuration: .init(
            threadCount: lanes.configuration.webPush.total, defaultTimeout: .seconds(30), maxRedirects: 0,
            allowedDestinations: pushDestinations, logger: logger
        ))
        // Mail goes to the operator's SMTP server only.
        let mailClient = CurlHTTPClient(configuration: .init(threadCount: 4, defaultTimeout: .seconds(30), maxRedirects: 0, logger: logger))
        let vapidKeys = try VAPIDKeys.fromEnvironment(configuration.environment) ?? (configuration.demo ? VAPIDKeys.generate() : nil)
        self.vapidKeys = vapidKeys
        var channels = NotificationChannels(
            webhook: WebhookChannel(
                client: webhookClient,
                configuration: .init(allowInsecureLoopbackForTesting: configuration.allowInsecurePushEndpoints),
                clock: clock, logger: logger
            ),
            log: LogChannel(logger: logger)
        )
        if let vapidKeys {
            let subject = configuration.environment["GATEWAY_VAPID_SUBJECT"] ?? "mailto:operators@campus-gateway.invalid"
            channels.webPush = WebPushChannel(
                client: webPushClient,
                configuration: .init(vapid: try VAPIDSigner(keys: vapidKeys, subject: subject), allowInsecureLoopbackForTesting: configuration.allowInsecurePushEndpoints),
                clock: clock, logger: logger
            )
        }
        if let apns = configuration.apns {
            let token: APNsProviderToken
            do {
                token = try APNsProviderToken(
                    p8File: URL(fileURLWithPath: apns.keyFile), teamID: apns.teamID, keyID: apns.keyID, now: { [clock] in clock.now() }
                )
            } catch {
                throw StartupRefusal("APNs: \(error) (GATEWAY_APNS_KEY_FILE, GATEWAY_APNS_KEY_ID, GATEWAY_APNS_TEAM_ID)")
            }
            channels.apns = APNsChannel(providerToken: token, configuration: .init(baseURL: apns.baseURL, additionalCAFile: apns.caFile))
        }
        let email = try EmailWiring(configuration: configuration, client: mailClient, emails: devices.emails, clock: clock, logger: logger)
        channels.email = email.channel
        self.push = PushService(
            transactions: database, devices: deviceStore, jobs: SQLiteJobEnqueuer(), channels: channels, lanes: lanes, clock: clock
        )
        let classDirectory = RegistrationClassDirectory(service: registration)
        self.seatAlerts = SeatAlertService(
            transactions: database, store: SQLiteSeatAlertStore(), directory: classDirectory, push: push, clock: clock
        )
        self.pushPreferences = PreferenceService(transactions: database, clock: clock)
        self.gradebookAlertPreferences = GradebookAlertPreferenceService(
            transactions: database, store: SQLiteGradeAlertStore(), accounts: gradebookAccounts, clock: clock
        )
        self.deviceGradebookAccounts = DeviceAccountService(
            transactions: database, sources: gradebookSources, vault: vault, clock: clock, adapter: CalPolyAdapter(upstream: upstream)
        )
        let deviceKeySecret = SymmetricKey(data: try database.pool.read { db in try SQLiteQuickHACKeyStore().deviceKeySecret(in: db) })
        self.quickHAC = QuickHACService(
            transactions: database, devices: deviceStore, deviceKeySecret: deviceKeySecret, accounts: deviceGradebookAccounts, clock: clock,
            apnsTopic: configuration.quickHACTopic, apnsEnvironment: configuration.quickHACEnvironment,
            requestsPerMinute: configuration.quickHACRequestsPerMinute
        )
        self.routes = RouteRegistry()
        self.webAssets = WebAssets.installed()
        self.jobs = JobsRuntime(database: database, clock: clock, configuration: configuration.jobs, logger: logger)
        Diagnostics.register(in: jobs.registry)
        try AuthJobHandlers.register(auth, in: jobs.registry)
        try RegistrationJobHandlers.register(registration, in: jobs.registry)
        Push.PushJobHandlers(service: push, seatAlerts: seatAlerts, registration: classDirectory, directory: classDirectory)
            .register(in: jobs.registry)
        email.mailer.register(in: jobs.registry)
        try PushRetention(transactions: database, accounts: deviceGradebookAccounts, clock: clock).register(in: jobs.registry)
        try SnapshotRetention(transactions: database, clock: clock).register(in: jobs.registry)
        GradePoller(
            transactions: database, accounts: deviceGradebookAccounts, ownedAccounts: gradebookAccounts, gradebooks: gradebooks,
            jobs: SQLiteJobEnqueuer(), clock: clock
        )
            .register(in: jobs.registry)
        try GradeNotifications(
            transactions: database, devices: deviceStore, accounts: deviceGradebookAccounts, ownedAccounts: gradebookAccounts,
            alerts: SQLiteGradeAlertStore(), preferences: SQLitePreferenceStore(), jobs: SQLiteJobEnqueuer(), push: push,
            tick: configuration.gradePollTickSeconds
        )
            .register(in: jobs.registry)
    }

    /// How the router is built: every GET route also answers HEAD (``HeadRequests``).
    public static let routerOptions: RouterOptions = HeadRequests.routerOptions

    /// The router with every route and middleware. Routes are recorded in ``routes``.
    public func makeRouter() -> Router<GatewayContext> {
        _ = GatewayMetrics.registry
        let router = Router(context: GatewayContext.self, options: Self.routerOptions)
        var admissions: [any RequestAdmission] = []
        if !configuration.trustedProxies.isEmpty { admissions.append(ForwardedFor(trusted: configuration.trustedProxies)) }
        if configuration.requireHTTPS, configuration.tlsCertificatePath == nil {
            admissions.append(HTTPSOnly(trusted: configuration.trustedProxies))
        }
        admissions.append(BodyLimit(
            limit: configuration.maxBodyBytes,
            exceptions: [RegistrationRoutes.importPath: configuration.maxImportBytes, SchedulingRoutes.ratingsPath: configuration.maxImportBytes]
        ))
        router.add(middleware: FrontDoorMiddleware(
            admissions: admissions, errors: ErrorResponses(renderers: errorRenderers), metrics: RequestMetrics(),
            accessLog: AccessLog(secretPrefixes: [SchedulingRoutes.feedPathPrefix]),
            securityHeaders: SecurityHeaders(nativeTLS: configuration.tlsCertificatePath != nil)
        ))

        let guarded = RouteGuard(registry: routes, authenticator: TokenAuthenticator(service: auth))
        OpsRoutes(
            database: database, openAPIPath: configuration.openAPIPath ?? OpsRoutes.locateSpec(), metricsToken: configuration.metricsToken,
            metricsReaders: OpsRoutes.loopback + configuration.trustedProxies
        )
            .register(with: guarded, on: router)
        AuthRoutes(service: auth).register(with: guarded, on: router)
        JobsAdminRoutes(runtime: jobs).register(with: guarded, on: router)
        V1CatalogRoutes(service: catalog).register(with: guarded, on: router)
        V1TermRoutes(service: terms).register(with: guarded, on: router)
        RegistrationRoutes(service: registration).register(with: guarded, on: router)
        scheduling.routes.register(with: guarded, on: router)
        GradebookRoutes(gradebooks: gradebooks, sources: gradebookSources, accounts: gradebookAccounts)
            .register(with: guarded, on: router)
        PushRoutes(devices: devices, push: push, seatAlerts: seatAlerts, vapidPublicKey: vapidKeys?.publicKeyBase64URL).register(with: guarded, on: router)
        EmailRoutes(devices: devices).register(with: guarded, on: router)
        PreferenceRoutes(preferences: pushPreferences).register(with: guarded, on: router)
        GradebookAlertRoutes(preferences: gradebookAlertPreferences).register(with: guarded, on: router)
        QuickHACRoutes(service: quickHAC).register(with: guarded, on: router)
        WebRoutes(assets: webAssets).register(with: guarded, on: router)
        if configuration.demo {
            // The demo's upstream: a gradebook simulator in this process (source 1).
            GradebookSimulator(data: .demo, adminToken: configuration.simulatorAdminToken)
                .register(on: router, prefix: Self.simulatorPrefix)
        }
        return router
    }

    /// Compatibility protocols answer errors in their own form.
    var errorRenderers: [ErrorRenderer] { [RegistrationRoutes.errorRenderer, GradebookRoutes.errorRenderer, QuickHACRoutes.errorRenderer] }

    /// Where `--demo` mounts the gradebook simulator.
    public static let simulatorPrefix = "sim/gradebook"

    /// Addresses development gradebook sources may use: loopback and private networks.
    static let developmentDestinations: DestinationAllowList = [
        "127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7",
    ]

    /// Source 1 of a demo: the mounted simulator at this server's own port.
    public func demoGradebookSource(port: Int) -> GradebookSource {
        let scheme = configuration.tlsCertificatePath == nil ? "http" : "https"
        let host = configuration.host == "0.0.0.0" || configuration.host == "::" ? "127.0.0.1" : configuration.host
        return GradebookSource(
            id: 1, name: "Gradebook simulator (demo)", baseURL: URL(string: "\(scheme)://\(host):\(port)/\(Self.simulatorPrefix)/grades.json")!,
            pollIntervalSeconds: 300, maxConcurrency: 8, requestsPerMinute: 6000, development: true
        )
    }

    /// Background services that run beside the HTTP server.
    public func backgroundServices() -> [any Service] {
        var services: [any Service] = []
        if configuration.jobs.workersEnabled { services.append(jobs.pool) }
        return services
    }

    /// The Hummingbird application, plain HTTP or TLS as configured.
    public func makeApplication() throws -> some ApplicationProtocol {
        let server: HTTPServerBuilder
        // Connections idle this long are closed, so idle (or slowly dribbling) clients can't
        // hold sockets forever.
        let http1 = HTTP1Channel.Configuration(idleTimeout: .seconds(Int64(configuration.idleTimeoutSeconds)))
        if let cert = configuration.tlsCertificatePath, let key = configuration.tlsKeyPath {
            let chain = try NIOSSLCertificate.fromPEMFile(cert).map { NIOSSLCertificateSource.certificate($0) }
            var tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: chain, privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem))
            )
            tls.minimumTLSVersion = .tlsv12
            server = try .tls(.http1(configuration: http1), tlsConfiguration: tls)
        } else {
            server = .http1(configuration: http1)
        }
        return Application(
            router: makeRouter(),
            server: server,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "campus-gateway"),
            services: backgroundServices(),
            onServerRunning: { [logger, portFile = configuration.portFile, self] channel in
                let port = channel.localAddress?.port ?? 0
                logger.notice("listening", metadata: ["port": "\(port)"])
                if configuration.demo {
                    // Point demo source 1 at the simulator on the port actually bound.
                    do { _ = try await gradebookSources.put(demoGradebookSource(port: port)) } catch {
                        logger.error("demo: could not register the gradebook simulator", metadata: ["error": "\(error)"])
                    }
                }
                if let portFile {
                    // Written to a temporary name, then renamed: a reader never sees half a number.
                    let partial = portFile + ".partial"
                    FileManager.default.createFile(atPath: partial, contents: Data("\(port)\n".utf8))
                    _ = rename(partial, portFile)
                }
            },
            logger: logger
        )
    }

    /// Serves until SIGTERM or SIGINT, then shuts down gracefully.
    public func run() async throws {
        try await checkVault()
        try await seedDemoIfRequested()
        let sdsuTerm = configuration.registration.sdsuTerm
        if try await catalog.subjects(inTerm: sdsuTerm).isEmpty {
            logger.warning("the SDSU protocol's term has no classes (--sdsu-term)", metadata: ["term": "\(sdsuTerm)"])
        }
        let app = try makeApplication()
        logger.info(
            "serving",
            metadata: [
                "address": "\(configuration.host):\(configuration.port)",
                "database": "\(configuration.databasePath)",
                "sqlite": "\((try? database.sqliteVersion()) ?? "?")",
            ]
        )
        try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
    }
}

public import ModuleKit
import GRDB
import Contracts
import Crypto
import PostgresStores
import SQLiteStores
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
public import Friends
public import Logging
public import Registration
public import ServiceLifecycle
public import Storage
public import Web
public import SQLiteStorage

/// The composition root: the only place that knows every module. It opens the database,
/// builds the services, mounts every module's routes behind the shared middleware, and runs
/// the HTTP server and background services under one service group.
public struct GatewayApplication: Sendable {
    /// SQLite schema modules in dependency order (``GatewayStorage/sqliteModules``).
    public static var schemaModules: [any SchemaModule.Type] { GatewayStorage.sqliteModules }

    public let configuration: GatewayConfiguration
    /// The database: the SQLite file, or the PostgreSQL database all instances share.
    public let storage: GatewayStorage
    let logger: Logger
    /// The seven feature modules, each as its factory built it (``GatewayModules``).
    public let modules: GatewayModules
    /// Every mounted route with its access level, filled by ``makeRouter()``.
    public let routes: RouteRegistry
    /// The clock every module reads (a manual one in tests).
    public let clock: any GatewayClock
    /// The Web Push VAPID keys (`GATEWAY_VAPID_PRIVATE_KEY`; a demo makes its own); nil without.
    let vapidKeys: VAPIDKeys?
    /// Services of the process that run beside the server too (the trace exporter).
    public var processServices: [any Service] = []
    /// The student web app and operator console files (`/`, `/admin/`), read once.

    /// Opens and migrates the database, then composes the modules. Each module is built by
    /// its one factory from its stores (``GatewayStores``: the backend's seam) and what it
    /// needs from the modules before it; each registers its own job kinds.
    public init(configuration: GatewayConfiguration, clock: any GatewayClock = SystemClock(), logger: Logger? = nil) throws {
        var logger = logger ?? Logger(label: "campus-gateway")
        logger.logLevel = configuration.logLevel
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        let storage = try GatewayStorage.open(
            try DatabaseLocation.parse(configuration.databasePath, environment: configuration.environment),
            connections: configuration.databaseConnections, logger: logger
        )
        self.storage = storage
        let database = storage.transactions
        let isNew = try storage.isNew()
        try storage.migrate()
        // "New" for the demo: no user data, even if `gateway migrate` made the schema first.
        try Self.checkDemoMark(storage: storage, demo: configuration.demo, isNew: isNew || !(try storage.holdsUserData()))
        let vault = try VaultKeyProvider(
            source: storage.vaultKeySource(environment: configuration.environment, keyFile: configuration.vaultKeyFile)
        )
        let stores = storage.stores(vault: vault)

        let jobs = JobsRuntime(transactions: database, stores: stores.jobs, clock: clock, configuration: configuration.jobs, logger: logger)
        let auth = try AuthModule.live(
            transactions: database, store: stores.accounts, signInLedger: stores.signInLedger, hasher: configuration.makePasswordHasher(), clock: clock,
            settings: configuration.authSettings, revocations: [SchedulingModule.credentialRevocation(stores: stores.scheduling)],
            campus: configuration.campusSignIn.map { settings in
                AuthModule.CampusWiring(settings: settings, store: stores.campusSignIn, client: Self.providerClient(for: settings))
            },
            logger: logger, audit: stores.audit
        )
        let accounts = auth.accountDirectory(credentialCacheSeconds: configuration.registration.credentialCacheSeconds)
        let sharedEnrollments = RegistrationModule.sharedEnrollments(transactions: database, students: stores.students)
        let friends = FriendsModule.live(
            transactions: database, store: stores.friends, accounts: accounts, clock: clock,
            visibleClasses: [sharedEnrollments, SchedulingModule.friendVisibleSchedules(transactions: database, stores: stores.scheduling)]
        )
        let catalog = try CatalogModule.live(
            transactions: database, stores: stores.catalog, refreshInterval: configuration.registration.catalogRefreshSeconds,
            friends: friends.circle
        )
        let registration = RegistrationModule.live(
            transactions: database, stores: stores.registration(catalog: catalog.catalog.store, jobs: jobs.enqueuer),
            catalog: catalog.catalog,
            accounts: accounts, clock: clock, settings: configuration.registration,
            registrarFeed: RegistrarFeedSettings(
                webhookSecrets: configuration.registrarWebhookSecrets,
                client: CurlHTTPClient(configuration: .init(
                    threadCount: 1, defaultTimeout: .seconds(30), maxRedirects: 0, allowedDestinations: configuration.registrarAllowedDestinations,
                    logger: logger
                ))
            ),
            logger: logger
        )
        let scheduling = SchedulingModule.live(
            transactions: database, stores: stores.scheduling, catalog: catalog.catalog, terms: catalog.terms,
            registered: registration.classDirectory, eligibility: registration.classDirectory, friends: friends.circle,
            sharedEnrollments: sharedEnrollments, friendsInClasses: friends.circle, clock: clock,
            buildsPerMinute: configuration.buildsPerMinute
        )
        let gradebook = GradebookModule.live(
            transactions: database, stores: stores.gradebook, vault: vault, jobs: jobs.enqueuer, clock: clock,
            settings: configuration.gradebookSettings(developmentDestinations: Self.developmentDestinations), logger: logger
        )
        // Webhook secrets and Web Push keys are sealed by the vault, bound to their rows; rows
        // an older server wrote in clear are sealed now, before anything is served.
        let sealedAtStart = try stores.push.sealClearKeys()
        if sealedAtStart > 0 { logger.notice("push: sealed device keys stored in clear", metadata: ["devices": "\(sealedAtStart)"]) }
        let delivery = try PushDeliveryWiring(configuration: configuration, developmentDestinations: Self.developmentDestinations, clock: clock, logger: logger)
        let push = try PushModule.live(
            transactions: database, stores: stores.push, jobs: jobs.enqueuer, channels: delivery.channels, mail: delivery.mail,
            sms: delivery.sms, lanes: delivery.lanes, gradebookAccounts: gradebook.deviceAccounts, ownedGradebookAccounts: gradebook.accounts,
            classes: registration.classDirectory, clock: clock, settings: delivery.settings
        )

        self.modules = GatewayModules(
            jobs: JobsModule(runtime: jobs), auth: auth, catalog: catalog, registration: registration, scheduling: scheduling,
            friends: friends, gradebook: gradebook, push: push, web: WebModule(), vault: vault
        )
        self.vapidKeys = delivery.vapidKeys
        self.routes = RouteRegistry()
        for case let module as any JobRunningModule in modules.all { try module.register(in: jobs.registry) }
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
            exceptions: Dictionary(modules.all.flatMap(\.importPaths).map { ($0, configuration.maxImportBytes) }, uniquingKeysWith: max)
        ))
        let allowedMethods = AllowedMethods()
        if !configuration.corsOrigins.isEmpty {
            router.add(middleware: CrossOriginRequests(origins: configuration.corsOrigins, nativePrefixes: errorRenderers.map(\.pathPrefix)))
        }
        router.add(middleware: FrontDoorMiddleware(
            traceTrust: IncomingTraceTrust(trustedProxies: configuration.trustedProxies, trustEveryone: configuration.traceTrustIncoming),
            admissions: admissions, errors: ErrorResponses(renderers: errorRenderers), metrics: RequestMetrics(),
            accessLog: AccessLog(secretPrefixes: [SchedulingRoutes.feedPathPrefix, SchedulingRoutes.sharedPathPrefix, WebRoutes.sharedPagePrefix]),
            securityHeaders: SecurityHeaders(nativeTLS: configuration.tlsCertificatePath != nil), allowedMethods: allowedMethods
        ))

        router.add(middleware: ConditionalRequests())
        let guarded = RouteGuard(
            registry: routes, authenticator: modules.auth.authenticator, operatorCanAct: configuration.operatorCanAct, audit: modules.auth.audit
        )
        OpsRoutes(
            storage: storage, openAPIPath: configuration.openAPIPath ?? OpsRoutes.locateSpec(), metricsToken: configuration.metricsToken,
            metricsReaders: OpsRoutes.loopback + configuration.trustedProxies
        )
            .register(with: guarded, on: router)
        for module in modules.all { module.routes.register(with: guarded, on: router) }
        if configuration.demo {
            // The demo's upstream: a gradebook simulator in this process (source 1).
            GradebookSimulator(data: .demo, adminToken: configuration.simulatorAdminToken)
                .register(on: router, prefix: Self.simulatorPrefix)
            // And a Canvas stand-in (source 2), whose scores the admin token can change.
            CanvasSimulator(data: .demo, adminToken: configuration.simulatorAdminToken).register(on: router, prefix: Self.canvasSimulatorPrefix)
            // And a Moodle stand-in (source 3), whose grades the admin token can change.
            MoodleSimulator(data: .demo(), adminToken: configuration.simulatorAdminToken).register(on: router, prefix: Self.moodleSimulatorPrefix)
        }
        allowedMethods.load(HeadRequests.servedRoutes(router))
        return router
    }

    /// Compatibility protocols answer errors in their own form.
    var errorRenderers: [ErrorRenderer] { modules.all.flatMap(\.errorRenderers) }

    /// Where `--demo` mounts the gradebook simulator.
    public static let simulatorPrefix = "sim/gradebook"

    /// Where `--demo` mounts the Canvas stand-in.
    public static let canvasSimulatorPrefix = "sim/canvas"

    /// Source 2 of a demo: the mounted Canvas stand-in at this server's own port.
    public func demoCanvasSource(port: Int) -> GradebookSource {
        let demo = demoGradebookSource(port: port)
        return GradebookSource(
            id: 2, name: "Canvas (demo)", kind: .canvas, baseURL: URL(string: "\(demo.baseURL.scheme ?? "http")://\(demo.baseURL.host ?? "127.0.0.1"):\(port)/\(Self.canvasSimulatorPrefix)")!,
            authStyle: .bearer, pollIntervalSeconds: 300, maxConcurrency: 8, requestsPerMinute: 6000, development: true,
            oauthClientID: CanvasSimulator.DeveloperKey.demo.id
        )
    }

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
        modules.all.flatMap(\.backgroundServices) + processServices
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
                    do {
                        _ = try await modules.gradebook.sources.put(demoGradebookSource(port: port))
                        _ = try await modules.gradebook.sources.put(demoCanvasSource(port: port), clientSecret: CanvasSimulator.DeveloperKey.demo.secret)
                        _ = try await modules.gradebook.sources.put(demoMoodleSource(port: port))
                    } catch {
                        logger.error("demo: could not register the gradebook simulators", metadata: ["error": "\(error)"])
                    }
                    // The demo student's accounts go through the sources' real checks, over this port.
                    Task {
                        await DemoSeed(app: self).connectDemoStudent()
                        await DemoSeed(app: self).connectDemoMoodleStudent()
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
        try await checkCampusSignIn()
        try await seedDemoIfRequested()
        let sdsuTerm = configuration.registration.sdsuTerm
        if try await modules.catalog.catalog.subjects(inTerm: sdsuTerm).isEmpty {
            logger.warning("the SDSU protocol's term has no classes (--sdsu-term)", metadata: ["term": "\(sdsuTerm)"])
        }
        let app = try makeApplication()
        logger.info(
            "serving",
            metadata: [
                "address": "\(configuration.host):\(configuration.port)",
                "database": "\(storage)",
                "engine": "\(storage.engineVersion())",
                "version": "\(BuildInfo.current.version)",
                "commit": "\(BuildInfo.current.commit.map { String($0.prefix(12)) } ?? "unknown")",
            ]
        )
        do {
            try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
        } catch {
            await storage.shutdown()
            throw error
        }
        await storage.shutdown()
    }
}

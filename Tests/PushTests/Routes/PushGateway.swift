import Auth
import AuthTestSupport
import Contracts
import Foundation
import GRDB
import GatewayCore
import Gradebook
import GradebookTestSupport
import HTTPClient
import HummingbirdTesting
import Jobs
import Logging
import PostgresNIO
import PostgresStores
import Push
import SQLiteStores
import Storage
import TestSupport
import Testing
import SQLiteStorage
import PostgresStorage

/// The Push module alone on a router, as its device and preference suites need it: on a fresh
/// database of either backend with its own tables, Auth's accounts (whose devices they are) and
/// the jobs table its outbox enqueues into; Auth's real service as the authenticator; the log and
/// webhook channels (the webhook's client reaches public addresses only, as in production, unless
/// ``Delivery`` relaxes it as the application's flags do), mail to the log or to an SMTP server,
/// a job runtime whose workers are off (tests deliver with `push.deliver`, drain the queue, or
/// run the pool); and fakes of what it consumes from Gradebook and Registration (nobody's
/// gradebook accounts, no classes), or Gradebook's real module for QuickHAC (``withQuickHAC``).
struct PushGateway: AuthenticatedTestWorld {
    let module: PushModule
    let auth: AuthService
    let jobs: JobsRuntime
    let transactions: any TransactionRunner
    let backend: TestBackend.OpenedBackend
    let clock: ManualClock
    /// Gradebook's real module on the same database, with `gradebookSource` (QuickHAC's accounts).
    let gradebook: GradebookModule?
    let router: ModuleRouter<PushModule>
    /// A second instance of the module on the same database (`instances: 2`): what one instance
    /// counts, the other sees only through the database. Its jobs run on the first's registry.
    let secondInstance: ModuleRouter<PushModule>?
    let cleanUpBody: @Sendable () async -> Void

    var push: PushService { module.push }

    /// How deliveries leave, as the application's flags set them (`--allow-insecure-push-endpoints`,
    /// `--push-allowed-destinations`, `GATEWAY_SMTP_URL` with `GATEWAY_PUBLIC_URL`).
    struct Delivery {
        /// The demo's relaxation: loopback and private networks reachable, plain http allowed.
        var allowInsecureEndpoints = false
        /// The operator's allow-list of internal receivers (https still required).
        var allowedDestinations: DestinationAllowList = .none
        /// Mail over SMTP to this server (as `gateway`, with `smtpPassword`); the log otherwise.
        var smtp: SMTPStandIn?
        var smtpPassword = "smtp-secret-1"
        /// APNs through this stand-in, with the test provider key (``APNsFixtures``) signing by
        /// the gateway's clock; no APNs channel otherwise.
        var apns: APNsStandIn?
        /// Texts through this Twilio stand-in (its account and token; inbound posts signed with
        /// that token are accepted); to the log otherwise, inbound posts refused.
        var twilio: TwilioStandIn?

        /// Where the demo's insecure endpoints may point: loopback and private networks.
        static let developmentDestinations: DestinationAllowList = [
            "127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7",
        ]
    }

    /// The Push module; with `gradebookSource`, Gradebook's real module on the same database
    /// (``TestGradebook``) holds QuickHAC devices' accounts, the source stored as Gradebook's.
    static func make(
        _ backend: TestBackend = .sqlite, confirmationsPerHour: Int = RecipientQuota.defaultHourlyCap, delivery: Delivery = Delivery(),
        quickHACRequestsPerMinute: Int = 60, gradebookSource: GradebookSource? = nil, logs: CapturedLogs? = nil,
        smsConfirmations: SMSQuota? = nil, smsCountries: SMSCountries = .default, instances: Int = 1
    ) async throws -> PushGateway {
        var sqlite: [any SchemaModule.Type] = [AuthSchema.self, JobsSchema.self, PushSchema.self]
        var postgres: [any PostgresSchemaModule.Type] = [AuthSchema.self, JobsSchema.self, PushSchema.self]
        if gradebookSource != nil {
            sqlite.append(GradebookSchema.self)
            postgres.append(GradebookSchema.self)
        }
        let (transactions, opened, cleanUp) = try await backend.database("push-routes", sqlite: sqlite, postgres: postgres)
        let clock = ManualClock(Date())
        var logger = Logger(label: "push-tests")
        logger.logLevel = .critical
        if let logs { logger = CapturedLogs.logger(logs, level: .trace) }
        let stores: PushStores, jobStores: JobsStores
        switch opened {
        case .sqlite(let database): stores = .sqlite(database: database, sealer: TestVaultSealing()); jobStores = .sqlite(database: database)
        case .postgres(let database): stores = .postgres(sealer: TestVaultSealing()); jobStores = .postgres(database: database)
        }
        var jobConfiguration = JobsConfiguration()
        jobConfiguration.workersEnabled = false
        let jobs = JobsRuntime(transactions: transactions, stores: jobStores, clock: clock, configuration: jobConfiguration, logger: logger)
        let auth = try TestAuth.module(transactions: transactions, backend: opened, clock: clock)
        // As the application wires delivery: lanes fitted to the push queue's workers, each lane
        // with transfer threads of its own.
        let lanes = DeliveryLanes(configuration: jobConfiguration.limit(of: PushJobs.queue).map { DeliveryLanes.Configuration().fitting(workers: $0) } ?? .init())
        let destinations = (delivery.allowInsecureEndpoints ? Delivery.developmentDestinations : .none).union(delivery.allowedDestinations)
        let webhookClient = CurlHTTPClient(configuration: .init(
            threadCount: lanes.configuration.webhook.total, defaultTimeout: .seconds(30), maxRedirects: 0, allowedDestinations: destinations, logger: logger
        ))
        var channels = NotificationChannels(
            webhook: WebhookChannel(
                client: webhookClient, configuration: .init(allowInsecureLoopbackForTesting: delivery.allowInsecureEndpoints), clock: clock, logger: logger
            ),
            log: LogChannel(logger: logger)
        )
        if let apns = delivery.apns {
            let token = try APNsProviderToken(p8PEM: try APNsFixtures.p8PEM, teamID: APNsStandIn.teamID, keyID: APNsStandIn.keyID, now: { clock.now() })
            channels.apns = apns.channel(token)
        }
        let sender: any EmailSender
        if let smtp = delivery.smtp {
            let mailClient = CurlHTTPClient(configuration: .init(threadCount: 4, defaultTimeout: .seconds(30), maxRedirects: 0, logger: logger))
            let settings = try SMTPMailer.Configuration(url: smtp.url, username: "gateway", password: delivery.smtpPassword, additionalCAFile: smtp.caFile)
            sender = TransportEmailSender(transport: SMTPMailer(configuration: settings, client: mailClient), logger: logger)
        } else {
            sender = LogEmailSender(logger: logger)
        }
        var sms: PushModule.SMS
        if let twilio = delivery.twilio {
            // As the application wires it: the configured provider's host is allowed.
            let smsClient = CurlHTTPClient(configuration: .init(
                threadCount: 2, defaultTimeout: .seconds(30), maxRedirects: 0, allowedDestinations: try DestinationAllowList(["127.0.0.1"]), logger: logger
            ))
            let settings = TwilioSMSSender.Configuration(
                apiURL: twilio.baseURL, accountSID: twilio.accountSID, authToken: twilio.authToken, from: TwilioStandIn.fromNumber
            )
            sms = PushModule.SMS(
                sender: TwilioSMSSender(configuration: settings, client: smsClient, clock: clock, logger: logger), publicURL: Self.publicURL,
                inbound: SMSDevices.Inbound(url: Self.publicURL.absoluteString + "/v1/sms/inbound", accountSID: twilio.accountSID, authToken: twilio.authToken)
            )
        } else {
            sms = PushModule.SMS(sender: LogSMSSender(logger: logger), publicURL: Self.publicURL, inbound: nil)
        }
        sms.countries = smsCountries
        var gradebook: (module: GradebookModule, vault: VaultKeyProvider, cleanUp: @Sendable () -> Void)?
        if let gradebookSource {
            gradebook = try TestGradebook.module(transactions: transactions, backend: opened, jobs: jobs, clock: clock, logger: logger)
            _ = try await gradebook?.module.sources.put(gradebookSource)
        }
        let deviceAccounts: any DeviceGradebookAccounts = gradebook?.module.deviceAccounts ?? NoDeviceGradebookAccounts()
        let ownedAccounts: any OwnedGradebookAccounts = gradebook?.module.accounts ?? NoOwnedGradebookAccounts()
        let build = { [sms, channels] in try PushModule.live(
            transactions: transactions, stores: stores, jobs: jobs.enqueuer, channels: channels,
            mail: PushModule.Mail(
                sender: sender,
                composer: EmailComposer(from: try MailAddress(validating: "gateway@campus.example.edu"), publicURL: Self.publicURL)
            ),
            sms: sms,
            lanes: lanes, gradebookAccounts: deviceAccounts, ownedGradebookAccounts: ownedAccounts,
            classes: NoClasses(), clock: clock,
            settings: PushModule.Settings(
                allowInsecureEndpoints: delivery.allowInsecureEndpoints, allowedDestinations: delivery.allowedDestinations,
                quickHACTopic: "edu.campus.quickhac", quickHACEnvironment: .sandbox,
                quickHACRequestsPerMinute: quickHACRequestsPerMinute, gradePollTickSeconds: 60, vapidPublicKey: nil, confirmationsPerHour: confirmationsPerHour,
                smsConfirmations: smsConfirmations
            )
        ) }
        let module = try build()
        try module.register(in: jobs.registry)
        let second = instances > 1 ? ModuleRouter(try build(), authenticator: TokenAuthenticator(service: auth.service)) : nil
        return PushGateway(
            module: module, auth: auth.service, jobs: jobs, transactions: transactions, backend: opened, clock: clock, gradebook: gradebook?.module,
            router: ModuleRouter(module, authenticator: TokenAuthenticator(service: auth.service)), secondInstance: second,
            cleanUpBody: { [removeKey = gradebook?.cleanUp] in await cleanUp(); removeKey?() }
        )
    }

    /// Runs `body` with the Push module whose QuickHAC district 1 is the demo's gradebook
    /// simulator, in this process on a live port, through Gradebook's real device accounts.
    static func withQuickHAC(
        quickHACRequestsPerMinute: Int = 60, _ body: @Sendable @escaping (PushGateway) async throws -> Void
    ) async throws {
        try await InProcessSimulator.with(prefix: "sim/gradebook") { gradesURL, _ in
            let gateway = try await PushGateway.make(quickHACRequestsPerMinute: quickHACRequestsPerMinute, gradebookSource: TestGradebook.demoSource(gradesURL))
            defer { gateway.cleanUp() }
            try await body(gateway)
        }
    }

    /// The public URL the harness's mails and texts link to, and inbound texts are signed for.
    static let publicURL = URL(string: "https://gateway.example.edu")!

    /// Runs every job due on the push queue now (deliveries, confirmation mails).
    func deliverAll() async throws {
        _ = try await jobs.pool.drain(queue: PushJobs.queue)
    }

    /// The account id of `username`.
    func accountID(_ username: String) async throws -> Int64 {
        let store = auth.store
        return try await auth.transactions.read { db in try #require(try store.find(username: username, in: db)?.id) }
    }

    /// The integer one query answers, on either backend (a count of rows).
    func integer(_ sql: String) async throws -> Int {
        switch backend {
        case .sqlite(let database):
            return try await database.pool.read { db in try Int.fetchOne(db, sql: sql) ?? 0 }
        case .postgres(let database):
            return try await database.read { transaction in
                try transaction.postgres().query(PostgresQuery(unsafeSQL: sql)).first?.decode(Int.self) ?? 0
            }
        }
    }
}

/// Gradebook's device accounts, as a deployment with no QuickHAC devices has them: none.
struct NoDeviceGradebookAccounts: DeviceGradebookAccounts {
    func store(deviceKey: String, sourceID: Int64, username: String, password: String, clientAddress: String?) async throws(DeviceGradebookError) -> (id: Int64, created: Bool) {
        throw .unknownSource
    }
    func sees(student: String, accountID: Int64, clientAddress: String?) async throws(DeviceGradebookError) -> Bool { false }
    func account(deviceKey: String, username: String) async throws(DeviceGradebookError) -> Int64? { nil }
    func rekey(deviceKey: String, to newKey: String) async throws(DeviceGradebookError) {}
    func accountCount(deviceKey: String) async throws(DeviceGradebookError) -> Int { 0 }
    func removeAll(deviceKey: String) async throws(DeviceGradebookError) {}
    func remove(id: Int64) async throws(DeviceGradebookError) {}
    func pollIntervals() async throws -> [Int64: Int] { [:] }
}

/// Gradebook's stored accounts, as students with none have them.
struct NoOwnedGradebookAccounts: OwnedGradebookAccounts {
    func ownedAccounts(of owners: [Int64]) async throws -> [OwnedGradebookAccount] { [] }
    func ownedAccount(id: Int64, owner: Int64) async throws -> OwnedGradebookAccount? { nil }
}

/// Registration's classes, as an empty catalog has them.
struct NoClasses: ClassDirectory, RegistrationCurrentState {
    func label(classID: Int64) async throws -> ClassLabel? { nil }
    func classes(of course: CourseKey) async throws -> [ClassLabel] { [] }
    func offer(id: Int64) async throws -> SeatOfferState { .expired }
    func openSeats(classID: Int64) async throws -> Int? { nil }
    func isEnrolled(accountID: Int64, classID: Int64) async throws -> Bool { false }
}

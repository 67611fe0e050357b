public import ModuleKit
public import Foundation
public import Contracts
public import Crypto
public import GatewayCore
public import GatewayHTTP
public import HTTPClient
public import Hummingbird
public import Jobs
public import Storage

/// Devices, notifications and their delivery, seat and grade alerts, email and the QuickHAC
/// protocol, built in one place from what the module needs from outside: a transaction runner
/// and its stores, the job enqueuer, the delivery channels the deployment configured, the
/// gradebook accounts (Gradebook's, through Contracts), the classes (Registration's, through
/// Contracts), a clock and the settings. It gives back the services, the routes, the job
/// handlers and the sealed rows that key rotation walks.
public struct PushModule: JobRunningModule {
    /// The module's tables (its migrations are the store drivers').
    public static var schema: (any ModuleSchema.Type)? { PushSchema.self }

    /// What a deployment configured for Push.
    public struct Settings: Sendable {
        /// Lets http and private hosts for webhooks and Web Push endpoints (tests and the demo).
        public var allowInsecureEndpoints: Bool
        /// Private networks and hosts the operator allow-listed for webhooks and Web Push.
        public var allowedDestinations: DestinationAllowList
        /// The APNs topic (bundle id) and environment of QuickHAC devices that send a token.
        public var quickHACTopic: String
        public var quickHACEnvironment: APNsEnvironment
        /// Requests per minute one client network may make to `/ios/...` (0: unlimited).
        public var quickHACRequestsPerMinute: Int
        /// How often grade alerts look for due polls, in seconds.
        public var gradePollTickSeconds: Int
        /// The Web Push public key browsers subscribe with; nil: no Web Push.
        public var vapidPublicKey: String?
        /// Confirmation mails the whole gateway sends in any hour (``RecipientQuota``).
        public var confirmationsPerHour: Int
        /// Confirmation texts' own quota: the gateway's hourly cap and each client network's
        /// share (``SMSQuota``); nil: derived from `confirmationsPerHour` (a third, a tenth of
        /// that per network).
        public var smsConfirmations: SMSQuota?

        public init(
            allowInsecureEndpoints: Bool, allowedDestinations: DestinationAllowList, quickHACTopic: String,
            quickHACEnvironment: APNsEnvironment, quickHACRequestsPerMinute: Int, gradePollTickSeconds: Int, vapidPublicKey: String?,
            confirmationsPerHour: Int = RecipientQuota.defaultHourlyCap, smsConfirmations: SMSQuota? = nil
        ) {
            self.confirmationsPerHour = confirmationsPerHour
            self.smsConfirmations = smsConfirmations
            self.allowInsecureEndpoints = allowInsecureEndpoints
            self.allowedDestinations = allowedDestinations
            self.quickHACTopic = quickHACTopic
            self.quickHACEnvironment = quickHACEnvironment
            self.quickHACRequestsPerMinute = quickHACRequestsPerMinute
            self.gradePollTickSeconds = gradePollTickSeconds
            self.vapidPublicKey = vapidPublicKey
        }
    }

    /// How mail leaves: the sender (SMTP, the log in a demo, or one that discards with the
    /// reason kept) and how messages are written.
    public struct Mail: Sendable {
        public var sender: any EmailSender
        public var composer: EmailComposer

        public init(sender: any EmailSender, composer: EmailComposer) {
            self.sender = sender
            self.composer = composer
        }
    }

    /// How texts leave and come back: the sender (Twilio, the log in a demo, or one that
    /// discards with the reason kept), the public URL the texts' links start with, the inbound
    /// webhook's check (nil without a provider: inbound posts are refused), the inbound
    /// route's rate limit per client network, and the countries texted
    /// (`GATEWAY_SMS_COUNTRIES`).
    public struct SMS: Sendable {
        public var sender: any SMSSender
        public var publicURL: URL
        public var inbound: SMSDevices.Inbound?
        public var inboundRequestsPerMinute: Int
        public var countries: SMSCountries

        public init(
            sender: any SMSSender, publicURL: URL, inbound: SMSDevices.Inbound?, inboundRequestsPerMinute: Int = 120,
            countries: SMSCountries = .default
        ) {
            self.countries = countries
            self.sender = sender
            self.publicURL = publicURL
            self.inbound = inbound
            self.inboundRequestsPerMinute = inboundRequestsPerMinute
        }
    }

    public let devices: DeviceService
    public let push: PushService
    public let quickHAC: QuickHACService
    public let seatAlerts: SeatAlertService
    public let preferences: PreferenceService
    public let gradebookAlertPreferences: GradebookAlertPreferenceService
    /// Devices' sealed keys, for the vault's key rotation.
    public let deviceKeyRows: DeviceKeyRows
    let handlers: PushJobHandlers
    let mailer: EmailConfirmationMailer
    let texter: SMSConfirmationTexter
    let smsInboundRequestsPerMinute: Int
    let retention: PushRetention
    let gradeNotifications: GradeNotifications
    let settings: Settings

    /// The module on `stores`. `channels` holds the channels the deployment configured (the
    /// email channel is made here, from `mail`, since it confirms addresses through the
    /// module's devices).
    public static func live(
        transactions: any TransactionRunner, stores: PushStores, jobs: any JobEnqueuing, channels: NotificationChannels, mail: Mail,
        sms: SMS, lanes: DeliveryLanes, gradebookAccounts: any DeviceGradebookAccounts, ownedGradebookAccounts: any OwnedGradebookAccounts,
        classes: any ClassDirectory & RegistrationCurrentState, clock: any GatewayClock, settings: Settings
    ) throws -> PushModule {
        let recipientSecret = SymmetricKey(data: try transactions.readAtStartup { db in try stores.confirmationQuota.recipientSecret(in: db) })
        let recipients = ConfirmationRecipients(
            store: stores.confirmationQuota, secret: recipientSecret, hourlyCap: settings.confirmationsPerHour, sms: settings.smsConfirmations
        )
        let emails = EmailDevices(
            transactions: transactions, devices: stores.devices, store: stores.emails, seatAlerts: stores.seatAlerts, jobs: jobs, clock: clock,
            recipients: recipients
        )
        let smsDevices = SMSDevices(
            transactions: transactions, devices: stores.devices, emails: stores.emails, mutes: stores.smsMutes, jobs: jobs, clock: clock,
            recipients: recipients, recipientSecret: recipientSecret, inbound: sms.inbound, countries: sms.countries
        )
        let devices = DeviceService(
            transactions: transactions, store: stores.devices, emails: emails, sms: smsDevices, clock: clock,
            allowInsecureEndpoints: settings.allowInsecureEndpoints, allowedDestinations: settings.allowedDestinations
        )
        var channels = channels
        channels.email = EmailChannel(sender: mail.sender, composer: mail.composer, emails: emails, clock: clock)
        channels.sms = SMSChannel(sender: sms.sender, sms: smsDevices, publicURL: sms.publicURL, clock: clock)
        let push = PushService(
            transactions: transactions, devices: stores.devices, notifications: stores.notifications, preferences: stores.preferences,
            testLog: stores.testNotifications, jobs: jobs, channels: channels, lanes: lanes, clock: clock
        )
        let seatAlerts = SeatAlertService(transactions: transactions, store: stores.seatAlerts, directory: classes, push: push, clock: clock)
        let deviceKeySecret = SymmetricKey(data: try transactions.readAtStartup { db in try stores.quickHACKeys.deviceKeySecret(in: db) })
        return PushModule(
            devices: devices, push: push,
            quickHAC: QuickHACService(
                transactions: transactions, devices: stores.devices, keys: stores.quickHACKeys, retention: stores.retention,
                deviceKeySecret: deviceKeySecret, accounts: gradebookAccounts, clock: clock, apnsTopic: settings.quickHACTopic,
                apnsEnvironment: settings.quickHACEnvironment, requestsPerMinute: settings.quickHACRequestsPerMinute
            ),
            seatAlerts: seatAlerts,
            preferences: PreferenceService(transactions: transactions, store: stores.preferences, clock: clock),
            gradebookAlertPreferences: GradebookAlertPreferenceService(
                transactions: transactions, store: stores.gradeAlerts, accounts: ownedGradebookAccounts, clock: clock
            ),
            deviceKeyRows: DeviceKeyRows(transactions: transactions, store: stores.devices),
            handlers: PushJobHandlers(service: push, seatAlerts: seatAlerts, registration: classes, directory: classes),
            mailer: EmailConfirmationMailer(
                transactions: transactions, devices: stores.devices, store: stores.emails, sender: mail.sender, composer: mail.composer,
                clock: clock
            ),
            texter: SMSConfirmationTexter(
                transactions: transactions, devices: stores.devices, store: stores.emails, sms: smsDevices, sender: sms.sender, clock: clock
            ),
            smsInboundRequestsPerMinute: sms.inboundRequestsPerMinute,
            retention: PushRetention(
                transactions: transactions, store: stores.retention, devices: stores.devices, accounts: gradebookAccounts, clock: clock
            ),
            gradeNotifications: GradeNotifications(
                transactions: transactions, devices: stores.devices, accounts: gradebookAccounts, ownedAccounts: ownedGradebookAccounts,
                alerts: stores.gradeAlerts, preferences: stores.preferences, jobs: jobs, push: push, tick: settings.gradePollTickSeconds
            ),
            settings: settings
        )
    }

    /// Registers every Push job kind: deliveries, seat and class events, confirmation mails,
    /// grade alerts and their polls' schedule, and the daily retention.
    public func register(in registry: JobRegistry) throws {
        handlers.register(in: registry)
        mailer.register(in: registry)
        texter.register(in: registry)
        try retention.register(in: registry)
        try gradeNotifications.register(in: registry)
    }

    /// The module's routes (``PushModuleRoutes``).
    public var routes: PushModuleRoutes { PushModuleRoutes(module: self) }

    /// Errors under `/ios/` answer as the QuickHAC server did.
    public var errorRenderers: [ErrorRenderer] { [QuickHACRoutes.errorRenderer] }
}

/// Every HTTP route of the Push module: `/v1/push/...`, `/v1/me/notification-preferences`,
/// `/v1/me/gradebook-alerts`, email confirmation and unsubscribe, and the QuickHAC protocol
/// (`/ios/...`).
public struct PushModuleRoutes: ModuleRoutes {
    let module: PushModule

    public func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        PushRoutes(devices: module.devices, push: module.push, seatAlerts: module.seatAlerts, vapidPublicKey: module.settings.vapidPublicKey)
            .register(with: guarded, on: router)
        EmailRoutes(devices: module.devices).register(with: guarded, on: router)
        SMSRoutes(sms: module.devices.sms, requestsPerMinute: module.smsInboundRequestsPerMinute, clock: module.devices.clock)
            .register(with: guarded, on: router)
        PreferenceRoutes(preferences: module.preferences).register(with: guarded, on: router)
        GradebookAlertRoutes(preferences: module.gradebookAlertPreferences).register(with: guarded, on: router)
        QuickHACRoutes(service: module.quickHAC).register(with: guarded, on: router)
    }
}

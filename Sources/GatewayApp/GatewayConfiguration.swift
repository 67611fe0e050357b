public import GatewayCore
public import HTTPClient
import GatewayHTTP
import Gradebook
public import Auth
public import Foundation
public import Push
public import Jobs
public import Logging
public import Registration

/// Everything the service can be told at start-up. The CLI fills it from flags and `GATEWAY_*`
/// environment variables (docs/configuration.md lists them all).
public struct GatewayConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    /// The database: a SQLite file path, or a `postgres://` / `postgresql://` URL
    /// (``DatabaseLocation``).
    public var databasePath = "./data/gateway.sqlite"
    /// On PostgreSQL, the most connections this instance opens (its pool). Every instance
    /// opens up to this many: keep instances × this below the server's `max_connections`.
    public var databaseConnections = 16
    /// Serve a demo database: a new one is seeded and marked as a demo; a marked one is served
    /// only with this set, and an unmarked one refuses it.
    public var demo = false
    /// The demo accounts' passwords: random and printed once, or the README's.
    public var demoPasswords: DemoPasswords = .generated

    public enum DemoPasswords: String, Sendable, CaseIterable {
        case generated, documented
    }
    public var tlsCertificatePath: String?
    public var tlsKeyPath: String?
    /// Refuse plain-HTTP requests unless a trusted proxy says the client used HTTPS.
    public var requireHTTPS = false
    /// The reverse proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed: only
    /// requests whose socket peer is in one of these networks. Empty: headers are ignored.
    public var trustedProxies: [AddressRange] = []
    /// Continue the trace context (`traceparent`, `tracestate`) of every caller, not only of
    /// ``trustedProxies`` (`GATEWAY_TRACE_TRUST_INCOMING`): for a gateway reached only through a
    /// proxy that traces. Off: an untrusted caller's request starts a trace of its own.
    public var traceTrustIncoming = false
    /// Where to write the port the server listens on once it does (with `port` 0, the one the
    /// system chose): how tests and supervisors find it without reserving a port first.
    public var portFile: String?
    /// Self-service sign-ups (v1 accounts and SDSU `addstudent`) one client address may make per
    /// hour. Behind a campus NAT, raise it (or list the proxy in `trustedProxies`).
    public var signUpsPerHour = 30
    /// Schedule builds (`POST /v1/scheduling/builds`) one client address may ask for per
    /// minute; 0 removes the limit (benchmarks).
    public var buildsPerMinute = 60
    /// Requests one client network (an IPv4 address, an IPv6 /64) may make to the anonymous
    /// QuickHAC API (`/ios/`) a minute; 0 for no limit.
    public var quickHACRequestsPerMinute = 60
    /// Confirmation messages the whole gateway sends per channel in any hour.
    public var confirmationsPerHour = RecipientQuota.defaultHourlyCap
    /// Whether accounts with the `operator` role may act on jobs, queues and schedules
    /// (`GATEWAY_OPERATOR_CAN_ACT`); without it they only read the console.
    public var operatorCanAct = false
    /// When set, `/metrics` needs `Authorization: Bearer <this>` (at least 16 characters).
    public var metricsToken: String?
    /// Seconds after which an idle client connection is closed.
    public var idleTimeoutSeconds = 60
    /// Where `openapi.yaml` lives; found next to the working directory or the binary when nil.
    public var openAPIPath: String?
    public var logLevel: Logger.Level = .info
    /// How log lines (and the demo's one-time notice) are written.
    public var logFormat: LogFormat = .text
    /// The largest request body, except catalog imports.
    public var maxBodyBytes = 1 << 20
    /// Origins of front ends on other origins that may call the API from a browser
    /// (`https://app.campus.edu`), exactly as browsers send them; none by default.
    public var corsOrigins: [String] = []
    /// The largest catalog file an admin may upload (`POST /v1/admin/registration/imports`).
    public var maxImportBytes = 32 << 20
    public var auth = AuthService.Settings()
    public var passwordHashing = PasswordHasher.Parameters.owasp
    /// Threads that hash passwords; the rest of the cores serve requests.
    public var passwordHashingThreads = max(1, ProcessInfo.processInfo.activeProcessorCount - 1)
    /// Sign-ins allowed to wait for a hashing thread before new ones get 503.
    public var passwordHashingQueue = 1024
    public var loginThrottle = LoginThrottle.Limits()
    /// Job workers, queues, leases, retention, cron time zone, shutdown timeout.
    public var jobs = JobsConfiguration()
    /// Class limit, waitlist policy, offer window and red id policy (docs/registration.md).
    public var registration = RegistrationSettings()
    /// Upstream gradebooks: how long a request may take, how long answers are cached per user
    /// (0 turns the cache off), and an extra CA bundle to trust (a private upstream, tests).
    public var gradebookTimeoutSeconds = 10
    public var gradebookCacheSeconds = 30
    public var gradebookCAFile: String?
    /// The largest upstream file (pictures, feedback, submitted work) the gradebook routes pass
    /// through; a larger one answers 502.
    public var gradebookMaxFileBytes = 10 << 20
    /// The vault's key file; by default `<database>.vault-keys` (unless `GATEWAY_VAULT_KEY` is set).
    public var vaultKeyFile: String?
    /// The environment the vault reads `GATEWAY_VAULT_KEY` from (tests pass their own).
    public var environment: [String: String] = ProcessInfo.processInfo.environment
    /// Let webhook URLs and Web Push endpoints use http and private addresses (tests, demo on
    /// one machine). Off in production: user-supplied URLs are an SSRF path.
    public var allowInsecurePushEndpoints = false
    /// Private networks and host names an operator lets webhook URLs and Web Push endpoints
    /// reach (a campus-internal webhook receiver), https still required: the production way to
    /// relax the SSRF rules for known destinations, where `allowInsecurePushEndpoints` is a demo's.
    public var pushAllowedDestinations: DestinationAllowList = .none
    /// Secrets the registrar signs `POST /v1/registrar/seat-status` with (several during a
    /// rotation); none refuses every delivery.
    public var registrarWebhookSecrets: [WebhookSecret] = []
    /// Private networks and host names terms' `registrarFeedUrl`s may reach (the SSRF guard
    /// refuses private and loopback addresses otherwise).
    public var registrarAllowedDestinations: DestinationAllowList = .none
    /// Bounds on deliveries to user-supplied destinations: per host and per lane (webhooks,
    /// Web Push), each lane on its own transfer threads (docs/push.md).
    public var pushLanes = DeliveryLanes.Configuration()
    /// The APNs topic (bundle id) and environment of QuickHAC devices that send a token.
    public var quickHACTopic = "com.quickhac.ios"
    /// How often the grade-poll scheduler looks for polls that fell due, in seconds. Each
    /// followed student is polled once per their gradebook source's `pollIntervalSeconds`.
    public var gradePollTickSeconds = 60
    public var quickHACEnvironment: APNsEnvironment = .production
    /// APNs provider credentials (token-based auth). Without them, APNs devices can be
    /// registered but their notifications are discarded with the reason kept.
    public var apns: APNsSettings?
    /// The Web Push VAPID keys (`GATEWAY_VAPID_PRIVATE_KEY`); without them a demo makes its own
    /// and other servers offer no Web Push.
    public var vapidKeys: VAPIDKeys?
    /// The contact VAPID tokens name (`GATEWAY_VAPID_SUBJECT`, a `mailto:` or `https:` URL).
    public var vapidSubject = "mailto:operators@campus-gateway.invalid"
    /// Email notifications: the SMTP server (`GATEWAY_SMTP_*`); without one a demo logs its
    /// mails and other servers discard them with the reason kept.
    public var smtp: SMTPSettings?
    /// Text messages: the Twilio-compatible provider (`GATEWAY_SMS_*`); without one a demo logs
    /// its texts, other servers discard them with the reason kept and refuse inbound posts.
    public var sms: SMSSettings?
    /// The countries texts go to, by calling code (`GATEWAY_SMS_COUNTRIES`, default `1`).
    public var smsCountries: SMSCountries = .default
    /// Where people reach this server (`GATEWAY_PUBLIC_URL`), for the links in mails; needed
    /// with `smtp`. Without it (a demo) links point at `http://<host>:<port>`.
    public var publicURL: URL?
    /// Campus sign-in with the university's OpenID provider (`GATEWAY_OIDC_*`); nil keeps
    /// password sign-in only.
    public var campusSignIn: CampusSignInSettings?
    /// With `--demo`: the token for the mounted gradebook simulator's admin hook
    /// (`/sim/gradebook/_admin/`); nil turns the hook off.
    public var simulatorAdminToken: String?

    public init() {}
}

/// What the APNs channel needs: the .p8 signing key, its key id and the team id, and for tests
/// a stand-in's URL and certificate.
public struct APNsSettings: Sendable {
    public var keyFile: String
    public var keyID: String
    public var teamID: String
    /// Used instead of Apple's hosts (a local stand-in).
    public var baseURL: URL?
    /// Extra trust anchors (the stand-in's certificate).
    public var caFile: String?

    public init(keyFile: String, keyID: String, teamID: String, baseURL: URL? = nil, caFile: String? = nil) {
        self.keyFile = keyFile
        self.keyID = keyID
        self.teamID = teamID
        self.baseURL = baseURL
        self.caFile = caFile
    }
}

/// The Twilio-compatible provider text messages go through. `description` never shows the
/// auth token.
public struct SMSSettings: Sendable, CustomStringConvertible {
    /// `https://api.twilio.com` (`GATEWAY_SMS_API_URL`).
    public var apiURL: URL
    /// `GATEWAY_SMS_ACCOUNT_SID` (`AC...`).
    public var accountSID: String
    /// The auth token, read from `GATEWAY_SMS_AUTH_TOKEN_FILE`; it also signs inbound posts.
    public var authToken: String
    /// `GATEWAY_SMS_FROM`: the sending number (E.164) or a Messaging Service SID (`MG...`).
    public var from: String

    public static let defaultAPIURL = URL(string: "https://api.twilio.com")!

    public init(apiURL: URL = SMSSettings.defaultAPIURL, accountSID: String, authToken: String, from: String) {
        self.apiURL = apiURL
        self.accountSID = accountSID
        self.authToken = authToken
        self.from = from
    }

    public var description: String {
        "SMSSettings(\(apiURL.scheme ?? "?")://\(apiURL.host ?? "?")\(apiURL.port.map { ":\($0)" } ?? ""), account \(accountSID), token set)"
    }
}

/// The SMTP server email notifications go through. `description` never shows the password.
public struct SMTPSettings: Sendable, CustomStringConvertible {
    /// `smtp://host:587` (STARTTLS, always required) or `smtps://host:465`.
    public var url: URL
    /// The sender address (`GATEWAY_SMTP_FROM`).
    public var from: String
    public var username: String?
    public var password: String?
    /// Extra trust anchors for the server's certificate (a private CA, a test server).
    public var caFile: String?

    public init(url: URL, from: String, username: String? = nil, password: String? = nil, caFile: String? = nil) {
        self.url = url
        self.from = from
        self.username = username
        self.password = password
        self.caFile = caFile
    }

    public var description: String {
        "SMTPSettings(\(url.scheme ?? "?")://\(url.host ?? "?")\(url.port.map { ":\($0)" } ?? ""), from \(from), login \(username == nil ? "none" : "set"))"
    }
}

extension GatewayConfiguration {
    /// The password hasher with this configuration's cost, threads and queue.
    func makePasswordHasher() -> PasswordHasher {
        PasswordHasher(parameters: passwordHashing, threads: passwordHashingThreads, maxPending: passwordHashingQueue)
    }

    /// Auth's settings: token lifetimes, the sign-in throttle and sign-ups per hour.
    var authSettings: AuthModule.Settings {
        AuthModule.Settings(tokens: auth, loginThrottle: loginThrottle, signUpsPerHour: signUpsPerHour)
    }

    /// Gradebook's upstream settings.
    func gradebookSettings(developmentDestinations: DestinationAllowList) -> GradebookModule.Settings {
        GradebookModule.Settings(
            timeoutSeconds: gradebookTimeoutSeconds, cacheSeconds: gradebookCacheSeconds, additionalCAFile: gradebookCAFile,
            maxFileBytes: gradebookMaxFileBytes, developmentDestinations: developmentDestinations, publicURL: publicURL
        )
    }
}

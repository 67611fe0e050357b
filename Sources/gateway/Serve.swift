import GatewayCore
import Auth
import ArgumentParser
import Foundation
import GatewayApp
import HTTPClient
import Logging
import Push
import Registration

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the HTTP API until SIGTERM or SIGINT.",
        discussion: "With --demo, an empty database is seeded with demo accounts and data (see README)."
    )

    @Option(help: "Address to listen on; 0.0.0.0 for every interface (GATEWAY_HOST). Default: 127.0.0.1") var host: String?
    @Option(help: "Port to listen on; 0 picks a free one (GATEWAY_PORT). Default: 8080") var port: Int?
    @Option(help: "A SQLite file, created with its folder, or a postgres:// URL that many instances may share (GATEWAY_DATABASE). Default: ./data/gateway.sqlite") var database: String?
    @Option(name: .customLong("database-connections"), help: "On PostgreSQL, the most connections this instance opens (GATEWAY_DATABASE_CONNECTIONS). Default: 16") var databaseConnections: Int?
    @Flag(help: "Serve a demo database: a new one is seeded and marked; a marked one needs this flag (GATEWAY_DEMO=1).") var demo = false
    @Option(name: .customLong("demo-passwords"), help: "generated (random, printed once; the default) or documented (the README's, as make run uses) (GATEWAY_DEMO_PASSWORDS).") var demoPasswords: String?
    @Option(name: .customLong("tls-cert"), help: "PEM certificate chain for native TLS (GATEWAY_TLS_CERT).") var tlsCert: String?
    @Option(name: .customLong("tls-key"), help: "PEM private key for native TLS (GATEWAY_TLS_KEY).") var tlsKey: String?
    @Option(name: .customLong("gradebook-ca-file"), help: "Extra CA bundle trusted for upstream gradebooks (GATEWAY_GRADEBOOK_CA_FILE).") var gradebookCAFile: String?
    @Option(name: .customLong("gradebook-timeout"), help: "Seconds an upstream gradebook request may take (GATEWAY_GRADEBOOK_TIMEOUT). Default: 10") var gradebookTimeout: Int?
    @Option(name: .customLong("gradebook-cache-seconds"), help: "Seconds upstream answers are cached per user; 0 turns caching off (GATEWAY_GRADEBOOK_CACHE_SECONDS). Default: 30") var gradebookCacheSeconds: Int?
    @Flag(name: .customLong("allow-insecure-push-endpoints"), help: "Let webhook URLs and Web Push endpoints use http and private addresses: a demo on one machine only (GATEWAY_ALLOW_INSECURE_PUSH_ENDPOINTS=1).") var allowInsecurePushEndpoints = false
    @Option(name: .customLong("push-allowed-destinations"), help: "Private networks and host names webhooks and Web Push endpoints may reach, https still required, e.g. 10.20.0.0/16,hooks.campus.internal (GATEWAY_PUSH_ALLOWED_DESTINATIONS).") var pushAllowedDestinations: String?
    @Option(name: .customLong("quickhac-topic"), help: "APNs topic (bundle id) of QuickHAC devices (GATEWAY_QUICKHAC_TOPIC). Default: com.quickhac.ios") var quickHACTopic: String?
    @Option(name: .customLong("vault-key-file"), help: "The credential vault's key file (GATEWAY_VAULT_KEY_FILE). Default: <database>.vault-keys, unless GATEWAY_VAULT_KEY is set") var vaultKeyFile: String?
    @Flag(name: .customLong("require-https"), help: "Refuse plain-HTTP requests (GATEWAY_REQUIRE_HTTPS=1).") var requireHTTPS = false
    @Flag(name: .customLong("trust-proxy"), help: "Trust X-Forwarded-Proto/-For from a reverse proxy on this host (loopback peers only) (GATEWAY_TRUST_PROXY=1).") var trustProxy = false
    @Option(name: .customLong("trusted-proxies"), help: "Trust X-Forwarded-Proto/-For only from peers in these networks, e.g. 10.0.0.5/32,fd00::/8 (GATEWAY_TRUSTED_PROXIES).") var trustedProxies: String?
    @Flag(name: .customLong("trace-trust-incoming"), help: "Continue every caller's traceparent/tracestate, not only trusted proxies': the gateway is reached only through a proxy that traces (GATEWAY_TRACE_TRUST_INCOMING=true).") var traceTrustIncoming = false
    @Option(name: .customLong("port-file"), help: "Write the listening port to this file once serving (useful with --port 0) (GATEWAY_PORT_FILE).") var portFile: String?
    @Option(name: .customLong("grade-poll-tick-seconds"), help: "How often the grade-poll schedule looks for students whose poll fell due, in seconds (GATEWAY_GRADE_POLL_TICK_SECONDS). Default: 60") var gradePollTickSeconds: Int?
    @Option(name: .customLong("confirmations-per-hour"), help: "Confirmation messages (email today) the whole gateway sends per channel in any hour, whatever the accounts; past it they wait (GATEWAY_CONFIRMATIONS_PER_HOUR). Default: 300") var confirmationsPerHour: Int?
    @Option(name: .customLong("quickhac-requests-per-minute"), help: "Requests one client network (IPv4 address, IPv6 /64) may make to the QuickHAC API (/ios/) per minute; 0 for no limit (GATEWAY_QUICKHAC_REQUESTS_PER_MINUTE). Default: 60") var quickHACRequestsPerMinute: Int?
    @Option(name: .customLong("builds-per-minute"), help: "Schedule builds one client address may ask for per minute; 0 for no limit (GATEWAY_BUILDS_PER_MINUTE). Default: 60") var buildsPerMinute: Int?
    @Option(name: .customLong("signups-per-hour"), help: "Self-service sign-ups one client address may make per hour (GATEWAY_SIGNUPS_PER_HOUR). Default: 30") var signUpsPerHour: Int?
    @Option(name: .customLong("idle-timeout"), help: "Seconds before an idle client connection is closed (GATEWAY_IDLE_TIMEOUT). Default: 60") var idleTimeout: Int?
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical (GATEWAY_LOG_LEVEL). Default: info") var logLevel: String?
    @Option(name: .customLong("log-format"), help: "text, logfmt or json: how log lines are written; with json every line on stdout and stderr is a JSON object (GATEWAY_LOG_FORMAT). Default: text") var logFormat: String?
    @Option(name: .customLong("token-max-minutes"), help: "Longest bearer-token lifetime a client may request (GATEWAY_TOKEN_MAX_MINUTES). Default: 10080") var tokenMaxMinutes: Int?
    @Option(name: .customLong("max-import-mib"), help: "Largest catalog upload to the admin import endpoint, in MiB (GATEWAY_MAX_IMPORT_MIB). Default: 32") var maxImportMiB: Int?
    @Option(name: .customLong("cors-origins"), help: "Origins of front ends on other origins allowed to call the API from a browser, exactly as browsers send them, e.g. https://app.campus.edu,http://localhost:5173 (GATEWAY_CORS_ORIGINS). Default: none") var corsOrigins: String?
    @Option(name: .customLong("sdsu-term"), help: "The one catalog term the SDSU protocol (/registration/...) serves (GATEWAY_SDSU_TERM). Default: 2018-fall, the demo's") var sdsuTerm: String?
    @OptionGroup(title: "Jobs") var jobOptions: JobsServeOptions
    @OptionGroup(title: "Registration") var registration: RegistrationOptions
    @OptionGroup(title: "Campus sign-in") var campusSignIn: CampusSignInOptions

    func validate() throws {
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
        if let port, !(0...65535).contains(port) { throw ValidationError("--port must be between 0 and 65535") }
    }

    func resolved() throws -> GatewayConfiguration {
        var config = GatewayConfiguration()
        config.host = host ?? Env.string("host") ?? config.host
        config.port = try port ?? Env.int("port") ?? config.port
        config.databasePath = try Env.database(database)
        config.databaseConnections = try databaseConnections ?? Env.int("database-connections") ?? config.databaseConnections
        guard (1...1000).contains(config.databaseConnections) else { throw GatewayCLIError("--database-connections must be between 1 and 1000") }
        config.demo = try demo || Env.bool("demo")
        if let raw = demoPasswords ?? Env.string("demo-passwords") {
            guard let value = GatewayConfiguration.DemoPasswords(rawValue: raw) else {
                throw GatewayCLIError("--demo-passwords is generated or documented, not '\(raw)'")
            }
            config.demoPasswords = value
        }
        config.tlsCertificatePath = tlsCert ?? Env.string("tls-cert")
        config.tlsKeyPath = tlsKey ?? Env.string("tls-key")
        if (config.tlsCertificatePath == nil) != (config.tlsKeyPath == nil) {
            throw GatewayCLIError("TLS needs both a certificate and a key")
        }
        config.requireHTTPS = try requireHTTPS || Env.bool("require-https")
        if try trustProxy || Env.bool("trust-proxy") { config.trustedProxies = AddressRange.loopback }
        if let list = trustedProxies ?? Env.string("trusted-proxies") {
            config.trustedProxies += try list.split(separator: ",").map { item in
                guard let range = AddressRange(String(item)) else { throw GatewayCLIError("--trusted-proxies takes networks such as 10.0.0.0/8; not '\(item)'") }
                return range
            }
        }
        config.traceTrustIncoming = try traceTrustIncoming || Env.bool("trace-trust-incoming")
        config.logLevel = try Self.level(logLevel ?? Env.string("log-level"))
        config.logFormat = try Self.format(logFormat ?? Env.string("log-format"))
        if let max = try tokenMaxMinutes ?? Env.int("token-max-minutes") {
            guard (1...525_600).contains(max) else { throw GatewayCLIError("--token-max-minutes must be between 1 and 525600 (a year)") }
            config.auth.maxTokenMinutes = max
            config.auth.defaultTokenMinutes = min(config.auth.defaultTokenMinutes, max)
        }
        config.portFile = portFile ?? Env.string("port-file")
        config.gradebookCAFile = gradebookCAFile ?? Env.string("gradebook-ca-file")
        config.vaultKeyFile = vaultKeyFile ?? Env.string("vault-key-file")
        config.allowInsecurePushEndpoints = try allowInsecurePushEndpoints || Env.bool("allow-insecure-push-endpoints")
        if config.allowInsecurePushEndpoints, !config.demo {
            throw GatewayCLIError("--allow-insecure-push-endpoints is for a demo on one machine: use it with --demo only")
        }
        if let list = pushAllowedDestinations ?? Env.string("push-allowed-destinations") {
            do {
                config.pushAllowedDestinations = try DestinationAllowList(list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            } catch {
                throw GatewayCLIError("--push-allowed-destinations takes networks (10.20.0.0/16) and host names; \(error)")
            }
        }
        if let topic = quickHACTopic ?? Env.string("quickhac-topic") { config.quickHACTopic = topic }
        if let seconds = try gradebookTimeout ?? Env.int("gradebook-timeout") {
            guard (1...300).contains(seconds) else { throw GatewayCLIError("--gradebook-timeout must be between 1 and 300") }
            config.gradebookTimeoutSeconds = seconds
        }
        if let seconds = try gradebookCacheSeconds ?? Env.int("gradebook-cache-seconds") {
            guard (0...3600).contains(seconds) else { throw GatewayCLIError("--gradebook-cache-seconds must be between 0 and 3600") }
            config.gradebookCacheSeconds = seconds
        }
        if let limit = try signUpsPerHour ?? Env.int("signups-per-hour") {
            guard (1...1_000_000).contains(limit) else { throw GatewayCLIError("--signups-per-hour must be between 1 and 1000000") }
            config.signUpsPerHour = limit
        }
        if let tick = try gradePollTickSeconds ?? Env.int("grade-poll-tick-seconds") {
            guard (1...86_400).contains(tick) else { throw GatewayCLIError("--grade-poll-tick-seconds must be between 1 and 86400") }
            config.gradePollTickSeconds = tick
        }
        if let limit = try confirmationsPerHour ?? Env.int("confirmations-per-hour") {
            guard (1...1_000_000).contains(limit) else { throw GatewayCLIError("--confirmations-per-hour must be between 1 and 1000000") }
            config.confirmationsPerHour = limit
        }
        if let limit = try quickHACRequestsPerMinute ?? Env.int("quickhac-requests-per-minute") {
            guard (0...1_000_000).contains(limit) else { throw GatewayCLIError("--quickhac-requests-per-minute must be between 0 and 1000000") }
            config.quickHACRequestsPerMinute = limit
        }
        if let limit = try buildsPerMinute ?? Env.int("builds-per-minute") {
            guard (0...1_000_000).contains(limit) else { throw GatewayCLIError("--builds-per-minute must be between 0 and 1000000") }
            config.buildsPerMinute = limit
        }
        if let token = Env.string("simulator-admin-token") {
            guard token.count >= 16 else { throw GatewayCLIError("GATEWAY_SIMULATOR_ADMIN_TOKEN must be at least 16 characters") }
            config.simulatorAdminToken = token
        }
        let apnsParts = [Env.string("apns-key-file"), Env.string("apns-key-id"), Env.string("apns-team-id")]
        if apnsParts.contains(where: { $0 != nil }) {
            guard let keyFile = apnsParts[0], let keyID = apnsParts[1], let teamID = apnsParts[2] else {
                throw GatewayCLIError("APNs needs GATEWAY_APNS_KEY_FILE, GATEWAY_APNS_KEY_ID and GATEWAY_APNS_TEAM_ID together")
            }
            var settings = APNsSettings(keyFile: keyFile, keyID: keyID, teamID: teamID, caFile: Env.string("apns-ca-file"))
            if let raw = Env.string("apns-url") {
                guard let url = URL(string: raw), url.scheme == "https" else { throw GatewayCLIError("GATEWAY_APNS_URL must be an https URL") }
                settings.baseURL = url
            }
            config.apns = settings
        }
        if let key = Env.string("vapid-private-key") {
            do { config.vapidKeys = try VAPIDKeys(privateKeyBase64URL: key, source: "GATEWAY_VAPID_PRIVATE_KEY") } catch {
                throw GatewayCLIError("\(error)")
            }
        }
        if let subject = Env.string("vapid-subject") { config.vapidSubject = subject }
        config.operatorCanAct = try Env.bool("operator-can-act")
        if let token = Env.string("metrics-token") {
            guard token.count >= 16 else { throw GatewayCLIError("GATEWAY_METRICS_TOKEN must be at least 16 characters") }
            config.metricsToken = token
        }
        if let seconds = try idleTimeout ?? Env.int("idle-timeout") {
            guard (1...3600).contains(seconds) else { throw GatewayCLIError("--idle-timeout must be between 1 and 3600 seconds") }
            config.idleTimeoutSeconds = seconds
        }
        if let mib = try maxImportMiB ?? Env.int("max-import-mib") {
            guard (1...1024).contains(mib) else { throw GatewayCLIError("--max-import-mib must be between 1 and 1024") }
            config.maxImportBytes = mib << 20
        }
        if let list = corsOrigins ?? Env.string("cors-origins") {
            config.corsOrigins = try list.split(separator: ",").map { raw in
                guard let origin = GatewayConfiguration.corsOrigin(String(raw)) else {
                    throw GatewayCLIError("--cors-origins takes origins such as https://app.campus.edu or http://localhost:5173 (a scheme, a host and maybe a port; no path, no *), not '\(raw)'")
                }
                return origin
            }
        }
        try EmailEnvironment.apply(to: &config)
        try SMSEnvironment.apply(to: &config)
        try campusSignIn.apply(to: &config)
        try jobOptions.apply(to: &config)
        try registration.apply(to: &config)
        if let term = sdsuTerm ?? Env.string("sdsu-term") {
            guard !term.isEmpty, term.utf8.count <= 64, !term.contains(where: \.isWhitespace) else {
                throw GatewayCLIError("--sdsu-term must be a catalog term id (1 to 64 characters, no spaces), not '\(term)'")
            }
            config.registration.sdsuTerm = term
        }
        return config
    }

    /// The `--log-level` named, `info` when none is.
    static func level(_ raw: String?) throws -> Logger.Level {
        guard let raw else { return .info }
        guard let parsed = Logger.Level(rawValue: raw.lowercased()) else { throw GatewayCLIError("unknown log level '\(raw)'") }
        return parsed
    }

    /// The `--log-format` named, `text` when none is.
    static func format(_ raw: String?) throws -> LogFormat {
        guard let raw else { return .text }
        guard let parsed = LogFormat(rawValue: raw.lowercased()) else {
            throw GatewayCLIError("--log-format is text, logfmt or json, not '\(raw)'")
        }
        return parsed
    }

    func run() async throws {
        // The log first, in the format asked for, so that every line after it (the warnings
        // below, a refused start) is in that format.
        let level = try Self.level(logLevel ?? Env.string("log-level"))
        let format = try Self.format(logFormat ?? Env.string("log-format"))
        // Traces when an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT): every log line
        // written in a span then carries its trace and span ids.
        let environment = ProcessInfo.processInfo.environment
        let logMetadata = TraceExport.isConfigured(environment) ? TraceExport.logMetadata() : nil
        LoggingSystem.bootstrap { label in
            GatewayLogHandler(label: label, level: level, format: format, metadataProvider: logMetadata)
        }
        let traces = try TraceExport.start(environment: environment)
        defer { BufferedLogOutput.standardError.flush() }
        // Before anything is read: a misspelt variable is named even when the start then fails.
        let known = UnknownVariables.names(inHelp: Serve.helpMessage(includeHidden: true)).union(UnknownVariables.environmentOnly)
        let startup = Logger(label: "campus-gateway")
        for warning in UnknownVariables.warnings(environment: ProcessInfo.processInfo.environment, known: known) {
            startup.warning("\(warning)")
        }
        // A refused setting is reported by Entry, in this format too.
        let config = try resolved()
        var app = try GatewayApplication(configuration: config)
        if let traces { app.processServices.append(traces) }
        try await app.run()
    }
}

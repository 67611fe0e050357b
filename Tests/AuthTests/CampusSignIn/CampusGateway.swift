import Auth
import AuthTestSupport
import Foundation
import GatewayCore
import HTTPClient
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import PostgresStores
import SQLiteStores
import Storage
import TestSupport

/// Auth with campus sign-in on a router, pointed at an ``OpenIDStandIn``, on a fresh database
/// of either backend; and a browser's part of the flow (the cookie, following the redirects).
struct CampusGateway: ModuleTestWorld {
    static let publicURL = URL(string: "http://gateway.test")!

    let module: AuthModule
    let backend: TestBackend.OpenedBackend
    let transactions: any TransactionRunner
    let clock: ManualClock
    let router: ModuleRouter<AuthModule>
    let cleanUpBody: @Sendable () async -> Void

    var auth: AuthService { module.service }
    var campus: CampusSignIn { module.campus! }

    static func make(
        _ backend: TestBackend, provider: OpenIDStandIn, adminGroup: String? = "gateway-admins", passwordSignIn: PasswordSignIn = .everyone,
        maximumLiveFlows: Int = 10_000
    ) async throws -> CampusGateway {
        let (transactions, opened, cleanUp) = try await backend.database("campus-sign-in", sqlite: [AuthSchema.self], postgres: [AuthSchema.self])
        let gateway = try instance(
            on: transactions, backend: opened, clock: ManualClock(Date()), provider: provider, adminGroup: adminGroup, passwordSignIn: passwordSignIn,
            maximumLiveFlows: maximumLiveFlows, cleanUp: cleanUp
        )
        provider.follow(gateway.clock)
        return gateway
    }

    /// Another instance on the same database: its own module, provider cache and clock.
    func secondInstance(provider: OpenIDStandIn) throws -> CampusGateway {
        try Self.instance(
            on: transactions, backend: backend, clock: ManualClock(clock.now()), provider: provider, adminGroup: campus.settings.adminGroup,
            passwordSignIn: campus.settings.passwordSignIn, cleanUp: {}
        )
    }

    static func instance(
        on transactions: any TransactionRunner, backend: TestBackend.OpenedBackend, clock: ManualClock, provider: OpenIDStandIn,
        adminGroup: String?, passwordSignIn: PasswordSignIn, maximumLiveFlows: Int = 10_000, cleanUp: @escaping @Sendable () async -> Void
    ) throws -> CampusGateway {
        var logger = Logger(label: "campus-test")
        logger.logLevel = .critical
        var settings = CampusSignInSettings(
            issuer: URL(string: provider.issuer)!, clientID: OpenIDStandIn.clientID, clientSecret: ClientSecret(OpenIDStandIn.clientSecret),
            adminGroup: adminGroup, publicURL: publicURL, passwordSignIn: passwordSignIn
        )
        settings.maximumLiveFlows = maximumLiveFlows
        let (accounts, ledger, store): (any AccountStoring, any SignInLedgerStoring, any CampusSignInStoring) = switch backend {
        case .sqlite: (SQLiteAccountStore(), SQLiteSignInLedgerStore(), SQLiteCampusSignInStore())
        case .postgres: (PostgresAccountStore(), PostgresSignInLedgerStore(), PostgresCampusSignInStore())
        }
        var tokens = AuthService.Settings()
        tokens.passwordSignIn = passwordSignIn
        let module = try AuthModule.live(
            transactions: transactions, store: accounts, signInLedger: ledger,
            hasher: PasswordHasher(parameters: .init(memoryKiB: 1024, iterations: 1, parallelism: 1), threads: 2), clock: clock,
            settings: AuthModule.Settings(tokens: tokens, loginThrottle: .init(), signUpsPerHour: 30), revocations: [],
            campus: AuthModule.CampusWiring(
                settings: settings, store: store,
                client: CurlHTTPClient(configuration: .init(threadCount: 2, allowedDestinations: .loopback))
            ),
            logger: logger
        )
        return CampusGateway(
            module: module, backend: backend, transactions: transactions, clock: clock,
            router: ModuleRouter(module, authenticator: module.authenticator), cleanUpBody: cleanUp
        )
    }

    // MARK: The browser's part

    /// Where a sign-in ended (`{returnTo}#signin=...` or `#signin-error=...`).
    struct Ending {
        let location: String
        /// The `cg_signin_code=...` cookie the callback set with a code, as the browser sends it back.
        var codeCookie: String? = nil
        var signInCode: String? { fragment("signin") }
        var error: String? { fragment("signin-error") }

        func fragment(_ name: String) -> String? {
            guard let hash = location.firstIndex(of: "#") else { return nil }
            let fragment = location[location.index(after: hash)...]
            guard fragment.hasPrefix(name + "=") else { return nil }
            return String(fragment.dropFirst(name.count + 1))
        }

        var path: String { String(location.prefix { $0 != "#" }) }
    }

    /// A started sign-in as the browser holds it: the provider's URL and the cookie.
    struct Started {
        let authorizeURL: URL
        let cookie: String
        let setCookie: String
    }

    static func start(_ client: some TestClientProtocol, returnTo: String = "/schedule") async throws -> Started {
        let response = try await client.execute(
            uri: "/v1/auth/oidc/start?returnTo=\(returnTo.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)!)", method: .get
        )
        guard response.status == .found, let location = response.headers[.location], let url = URL(string: location),
            let setCookie = response.headers[.setCookie]
        else { throw Unexpected("start answered \(response.status): \(String(buffer: response.body))") }
        return Started(authorizeURL: url, cookie: String(setCookie.prefix { $0 != ";" }), setCookie: setCookie)
    }

    /// The browser at the provider: its answer's Location (the gateway's callback URL).
    static func authorize(_ started: Started) async throws -> URL {
        let response = try await CurlHTTPClient(configuration: .init(threadCount: 1, allowedDestinations: .loopback))
            .execute(OutboundRequest(url: started.authorizeURL))
        guard response.status == 302, let location = response.headers["Location"], let url = URL(string: location) else {
            throw Unexpected("authorize answered \(response.status)")
        }
        return url
    }

    /// The browser back at the gateway with `cookie` (nil: another browser, without it).
    static func callback(_ client: some TestClientProtocol, _ url: URL, cookie: String?) async throws -> Ending {
        let uri = url.path + (url.query.map { "?" + $0 } ?? "")
        var headers: HTTPFields = [:]
        if let cookie { headers[.cookie] = cookie }
        let response = try await client.execute(uri: uri, method: .get, headers: headers)
        guard response.status == .found, let location = response.headers[.location] else {
            throw Unexpected("callback answered \(response.status): \(String(buffer: response.body))")
        }
        let codeCookie = response.headers[values: .setCookie].first { $0.hasPrefix("cg_signin_code=") && !$0.hasPrefix("cg_signin_code=;") }
        return Ending(location: location, codeCookie: codeCookie.map { String($0.prefix { $0 != ";" }) })
    }

    /// The whole browser flow: start, the provider, the callback.
    static func signIn(_ client: some TestClientProtocol, returnTo: String = "/schedule") async throws -> Ending {
        let started = try await start(client, returnTo: returnTo)
        return try await callback(client, try await authorize(started), cookie: started.cookie)
    }

    /// Trades a sign-in code for a token from a browser holding `cookie` (nil: another
    /// browser, without the code cookie): the status and the body.
    static func redeem(_ client: some TestClientProtocol, _ code: String, cookie: String?) async throws -> HTTPReply {
        var headers: HTTPFields = [:]
        if let cookie { headers[.cookie] = cookie }
        return try await client.json(.post, "/v1/auth/token", body: #"{"signinCode": "\#(code)"}"#, headers: headers)
    }

    /// Trades the code a sign-in ended with, in the browser it ended in.
    static func redeem(_ client: some TestClientProtocol, _ ending: Ending) async throws -> HTTPReply {
        guard let code = ending.signInCode else { throw Unexpected("no sign-in code: ended at \(ending.location)") }
        return try await redeem(client, code, cookie: ending.codeCookie)
    }

    struct Unexpected: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

public import Contracts
public import Crypto
public import Foundation
public import GatewayCore
public import Logging
public import Storage

/// Sign-up, sign-in, bearer tokens and their revocation.
public final class AuthService: Sendable {
    public struct Settings: Sendable {
        /// Token lifetime when the client asks for none.
        public var defaultTokenMinutes: Int
        /// The longest lifetime a client may ask for.
        public var maxTokenMinutes: Int

        /// The most live tokens one account holds; issuing another revokes the oldest.
        public var maxLiveTokens = 50
        /// The longest lifetime any setting can give: a year.
        public static let ceilingMinutes = 525_600
        /// Whether students may sign in with a password on the v1 API (the SDSU and QuickHAC
        /// protocols keep their own credentials either way).
        public var passwordSignIn: PasswordSignIn = .everyone

        public init(defaultTokenMinutes: Int = 120, maxTokenMinutes: Int = 7 * 24 * 60) {
            self.maxTokenMinutes = min(max(1, maxTokenMinutes), Self.ceilingMinutes)
            self.defaultTokenMinutes = min(max(1, defaultTokenMinutes), self.maxTokenMinutes)
        }
    }

    /// A freshly issued bearer token: the only time its value is visible.
    public struct IssuedToken: Codable, Sendable {
        public let token: String
        public let tokenType: String
        public let expiresAt: Date
    }

    /// Runs the transactions; ``store`` does the storage work inside them.
    public let transactions: any TransactionRunner
    public let store: any AccountStoring
    public let hasher: PasswordHasher
    /// Sign-in attempts, reserved and counted (shared by every instance on the database).
    public let throttle: any SignInThrottling
    public let clock: any GatewayClock
    public let settings: Settings
    /// Sign-ups per client address (v1 accounts and SDSU `addstudent` alike), shared by every
    /// instance on the database.
    public let signUps: any SignUpLimiting
    /// The database's server key: usernames reach logs only as HMACs under it.
    let serverKey: SymmetricKey
    /// Other modules' sign-in-free credentials, ended with the tokens (``CredentialRevocation``).
    let revocations: [any CredentialRevocation]
    let logger: Logger

    public init(
        transactions: any TransactionRunner, store: any AccountStoring, hasher: PasswordHasher, throttle: any SignInThrottling,
        clock: any GatewayClock, settings: Settings = Settings(), serverKey: SymmetricKey = SymmetricKey(size: .bits256),
        signUps: any SignUpLimiting = RateLimit(limit: 10, window: 3600), revocations: [any CredentialRevocation] = [],
        logger: Logger = Logger(label: "auth")
    ) {
        self.revocations = revocations
        self.transactions = transactions
        self.store = store
        self.hasher = hasher
        self.throttle = throttle
        self.clock = clock
        self.settings = settings
        self.serverKey = serverKey
        self.signUps = signUps
        self.logger = logger
    }

    /// Creates an account after checking the username and the password policy. With a client
    /// address (self-service sign-up), sign-ups from it are rate limited, and a taken username
    /// or email is refused before any password is hashed.
    public func createAccount(
        username rawUsername: String, email rawEmail: String?, password: String, role: Role, clientAddress: String? = nil
    ) async throws -> Account {
        let username: String
        switch Username.normalize(rawUsername) {
        case .success(let value): username = value
        case .failure(let error): throw AuthError.invalidField("username", message: error.message)
        }
        var email = rawEmail?.trimmingCharacters(in: .whitespaces).lowercased()
        if email?.isEmpty == true { email = nil }
        if email == nil, username.contains("@") { email = username }
        if let email, !Email.isPlausible(email) { throw AuthError.invalidField("email", message: "The email address is not valid.") }
        if let reason = PasswordPolicy.violation(password, username: username) {
            throw AuthError.invalidField("password", message: reason)
        }
        try await checkSignUpAllowed(from: clientAddress)
        let taken = try await transactions.read { [email, store] db in
            try store.find(username: username, in: db) != nil ? "username" : try email.flatMap { try store.find(email: $0, in: db) } != nil ? "email" : nil
        }
        if let taken { throw AuthError.accountExists(field: taken) }
        let hash = try await hasher.hash(password, client: clientAddress.map(LoginThrottle.network))
        let now = clock.now()
        let account = Account(username: username, email: email, passwordHash: hash, role: role, createdAt: now)
        let stored = try await transactions.write { [store] db in try store.insert(account, in: db) }
        logger.info("account created", metadata: ["account": "\(stored.id ?? 0)", "role": "\(role.rawValue)"])
        return stored
    }

    /// Checks a username and password, honouring the throttle. Throws 429 when throttled and
    /// 403 on bad credentials, with the same work done whether or not the account exists.
    public func verifyCredentials(username rawUsername: String, password: String, clientAddress: String?) async throws -> Account {
        let username = rawUsername.trimmingCharacters(in: .whitespaces).lowercased()
        let store = self.store, transactions = self.transactions
        let account = try await checkPassword(password, signInName: username, clientAddress: clientAddress) {
            try await transactions.readPreferringInline { db in try store.find(username: username, in: db) }
        }
        // With a campus provider and `admins-only`, a student's right password still signs
        // nobody in here: they use the provider.
        if settings.passwordSignIn == .adminsOnly, account.role != .admin { throw AuthError.passwordSignInOff }
        return account
    }

    /// The one password check behind every sign-in (v1 and the account directory): names and
    /// passwords no account can have are refused before the throttle keeps anything; the attempt
    /// is reserved in the throttle before hashing; an unknown or disabled account is verified
    /// against the decoy hash; a pair remembered in `cache` skips the hash. Throws
    /// ``AuthError/invalidCredentials``, ``AuthError/throttled(retryAfterSeconds:)`` or
    /// ``AuthError/busy(retryAfterSeconds:)``.
    func checkPassword(
        _ password: String, signInName: String, clientAddress: String?, cache: CredentialCache? = nil,
        account lookup: @Sendable () async throws -> Account?
    ) async throws -> Account {
        guard !signInName.isEmpty, signInName.utf8.count <= Username.maximumBytes, password.utf8.count <= PasswordPolicy.maximumBytes else {
            throw AuthError.invalidCredentials
        }
        // One indexed lookup on this thread (the credential cache makes it most of a check).
        let usable = try await lookup().flatMap { $0.disabled || !$0.hasPassword ? nil : $0 }
        // A request whose exact credential is being verified right now (the same student's app
        // sending a burst, cold) waits for that answer: it is the same guess, already counted,
        // so it needs no reservation of its own and costs the hasher nothing.
        if let cache, let usable,
            let running = cache.runningVerification(redID: signInName, passwordHash: usable.passwordHash, password: password)
        {
            guard try await running.value else { throw AuthError.invalidCredentials }
            return usable
        }
        // A credential verified lately from this client network (the same student's app, warm)
        // is not a guess: it consults no throttle and costs no hash. The cache is per network,
        // so a guesser elsewhere who is being throttled learns nothing from it: the right
        // password from another network goes through the throttle like any guess.
        let network = clientAddress.map(LoginThrottle.network)
        if let usable, let id = usable.id,
            cache?.account(redID: signInName, network: network, passwordHash: usable.passwordHash, password: password, now: clock.now()) == id
        {
            return usable
        }
        // The attempt is reserved, counted and hashed once per credential at a time: requests
        // with the same credential that arrive meanwhile wait for that verification.
        let valid: Bool
        if let cache, let usable {
            valid = try await cache.sharedVerification(redID: signInName, passwordHash: usable.passwordHash, password: password) { [self] in
                try await verifyCounted(password, encoded: usable.passwordHash, signInName: signInName, clientAddress: clientAddress)
            }
        } else {
            valid = try await verifyCounted(password, encoded: usable?.passwordHash, signInName: signInName, clientAddress: clientAddress)
        }
        guard valid, let usable, let id = usable.id else {
            logger.notice("sign-in failed", metadata: ["username_hmac": "\(logTag(for: signInName))"])
            throw AuthError.invalidCredentials
        }
        cache?.remember(redID: signInName, network: network, accountID: id, passwordHash: usable.passwordHash, password: password, now: clock.now())
        return usable
    }

    /// One counted guess: reserves the attempt in the throttle (or throws
    /// ``AuthError/throttled(retryAfterSeconds:)``), verifies the password against `encoded`
    /// (the decoy hash when nil), and records the verdict; no verdict (the hasher saturated or
    /// failing) gives the reservation back.
    ///
    /// With `countingAddress` false, the attempt counts against `signInName` alone: the
    /// address's counters (shared by everyone behind it) stay as they were.
    func verifyCounted(
        _ password: String, encoded: String?, signInName: String, clientAddress: String?, countingAddress: Bool = true
    ) async throws -> Bool {
        let attempt = try await reserveAttempt(username: signInName, clientAddress: countingAddress ? clientAddress : nil)
        let valid: Bool
        do {
            valid = try await hasher.verify(password, encoded: encoded, client: clientAddress.map(LoginThrottle.network))
        } catch {
            try? await throttle.withdraw(attempt)
            throw error
        }
        if valid, encoded != nil {
            try await throttle.succeeded(attempt, now: clock.now())
        } else {
            try await throttle.failed(attempt, now: clock.now())
        }
        return valid && encoded != nil
    }

    /// Reserves a sign-in attempt in the throttle, or throws ``AuthError/throttled(retryAfterSeconds:)``.
    func reserveAttempt(username: String, clientAddress: String?) async throws -> LoginThrottle.Attempt {
        switch try await throttle.begin(username: username, address: clientAddress, now: clock.now()) {
        case .success(let attempt): return attempt
        case .failure(let throttled): throw AuthError.throttled(retryAfterSeconds: throttled.retryAfterSeconds)
        }
    }

    /// Counts a self-service sign-up from `clientAddress` (nil: an operator's, not counted).
    func checkSignUpAllowed(from clientAddress: String?) async throws {
        guard let clientAddress else { return }
        if let wait = try await signUps.take(clientAddress: clientAddress, now: clock.now()) {
            throw AuthError.signUpThrottled(retryAfterSeconds: wait)
        }
    }

    /// Verifies credentials and issues a bearer token with the requested lifetime.
    public func issueToken(username: String, password: String, lifetimeMinutes: Int?, clientAddress: String?) async throws -> IssuedToken {
        let minutes = try tokenMinutes(lifetimeMinutes)
        let account = try await verifyCredentials(username: username, password: password, clientAddress: clientAddress)
        return try await issueToken(for: account, minutes: minutes)
    }

    /// The lifetime a client asked for (the default when none), checked against the settings.
    func tokenMinutes(_ requested: Int?) throws -> Int {
        let minutes = requested ?? settings.defaultTokenMinutes
        guard (1...min(settings.maxTokenMinutes, Settings.ceilingMinutes)).contains(minutes) else {
            throw AuthError.invalidField("lifetimeMinutes", message: "lifetimeMinutes must be between 1 and \(settings.maxTokenMinutes).")
        }
        return minutes
    }

    func issueToken(for account: Account, minutes: Int) async throws -> IssuedToken {
        var bytes = [UInt8](repeating: 0, count: 32)
        var generator = SystemRandomNumberGenerator()
        for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255, using: &generator) }
        let token = "cgt_" + Base64URL.encode(bytes)
        let now = clock.now()
        let expires = now.addingTimeInterval(TimeInterval(minutes * 60))
        let record = AccessToken(
            id: nil, accountID: account.id ?? 0, tokenHash: Self.digest(token), createdAt: now, expiresAt: expires, revokedAt: nil
        )
        let cap = settings.maxLiveTokens
        _ = try await transactions.write { [store] db in
            let stored = try store.insertToken(record, in: db)
            // Beyond the cap, the account's oldest live tokens are revoked (and pruned later).
            try store.revokeTokensBeyond(cap, accountID: record.accountID, now: now, in: db)
            return stored
        }
        return IssuedToken(token: token, tokenType: "Bearer", expiresAt: expires)
    }

    /// The identity behind a bearer token, or nil when it is unknown, expired or revoked.
    ///
    /// The lookup is by SHA-256 of the presented token. An index lookup is not constant time,
    /// but it leaks only timing about hashes of 256-bit random values, which reveals nothing
    /// usable about any real token.
    public func identity(bearer token: String) async throws -> Identity? {
        guard token.count <= 128 else { return nil }
        let hash = Self.digest(token)
        let now = clock.now()
        // Every authenticated request asks: one indexed lookup on this thread.
        return try await transactions.readPreferringInline { [store] db in
            guard let (record, account) = try store.liveToken(hash: hash, now: now, in: db) else { return nil }
            return Identity(accountID: account.id ?? 0, username: account.username, role: account.role, tokenID: record.id)
        }
    }

    /// Revokes the token the caller authenticated with.
    public func revoke(tokenID: Int64) async throws {
        let now = clock.now()
        try await transactions.write { [store] db in try store.revokeToken(id: tokenID, now: now, in: db) }
    }

    /// Accounts by id, after `afterID` (admin listing).
    public func accounts(after afterID: Int64, limit: Int) async throws -> [Account] {
        try await transactions.read { [store] db in try store.list(after: afterID, limit: limit, in: db) }
    }

    /// How many accounts exist (the demo seeds only a database with none).
    public func accountCount() async throws -> Int {
        try await transactions.read { [store] db in try store.count(in: db) }
    }

    public func account(id: Int64) async throws -> Account? {
        try await transactions.read { [store] db in try store.find(id: id, in: db) }
    }

    /// Deletes tokens that expired or were revoked more than `age` seconds ago; returns how
    /// many. Run hourly by the `auth.prune-tokens` schedule.
    @discardableResult
    public func pruneTokens(olderThan age: TimeInterval) async throws -> Int {
        let cutoff = clock.now().addingTimeInterval(-age)
        return try await transactions.write { [store] db in try store.pruneTokens(before: cutoff, in: db) }
    }

    static func digest(_ token: String) -> Data { Data(SHA256.hash(data: Data(token.utf8))) }

    /// A short tag for logs, so failed sign-ins can be correlated without writing the username
    /// (which may be an email address or a red id) to the log: an HMAC-SHA256 under the
    /// database's server key, so nobody without the key can test guesses against it (a plain
    /// hash of a 9-digit red id reverses in seconds).
    public func logTag(for username: String) -> String {
        HMAC<SHA256>.authenticationCode(for: Data(username.utf8), using: serverKey).prefix(8).map { String(format: "%02x", $0) }.joined()
    }
}

public import Contracts
public import Crypto
public import Foundation
public import GatewayCore
public import Storage

/// The QuickHAC push API (seed 004) over devices known by a uuid: register, add and remove
/// gradebook accounts (sealed by Gradebook through ``DeviceGradebookAccounts``), and choose
/// the students of each account to follow.
public final class QuickHACService: Sendable {
    let transactions: any TransactionRunner
    let devices: any DeviceStoring
    let keys: any QuickHACKeyStoring
    let retention: any PushRetentionStoring
    let deviceKey: QuickHACDeviceKey
    let accounts: any DeviceGradebookAccounts
    let clock: any GatewayClock
    /// The app's APNs topic and environment for devices that send a token.
    let apnsTopic: String
    let apnsEnvironment: APNsEnvironment
    /// Requests one client network (an IPv4 address, an IPv6 /64) may make a minute; nil: no limit.
    let throttle: RateLimit?

    /// The most gradebook accounts one device stores, and students one account follows: every
    /// followed student costs a poll per interval, so an anonymous caller's share is bounded.
    public static let maximumAccountsPerDevice = 5
    public static let maximumStudentsPerAccount = 10

    /// `deviceKeySecret`: the server secret device keys are made under
    /// (``QuickHACKeyStoring/deviceKeySecret(in:)``).
    public init(
        transactions: any TransactionRunner, devices: any DeviceStoring, keys: any QuickHACKeyStoring, retention: any PushRetentionStoring,
        deviceKeySecret: SymmetricKey, accounts: any DeviceGradebookAccounts,
        clock: any GatewayClock, apnsTopic: String, apnsEnvironment: APNsEnvironment, requestsPerMinute: Int = 60
    ) {
        self.transactions = transactions
        self.devices = devices
        self.keys = keys
        self.retention = retention
        self.deviceKey = QuickHACDeviceKey(secret: deviceKeySecret)
        self.accounts = accounts
        self.clock = clock
        self.apnsTopic = apnsTopic
        self.apnsEnvironment = apnsEnvironment
        self.throttle = requestsPerMinute > 0 ? RateLimit(limit: requestsPerMinute, window: 60) : nil
    }

    /// Too many requests from one client network: answer 429 after `retryAfter` seconds.
    public struct Throttled: Error, Sendable, Equatable {
        public let retryAfter: Int
    }

    /// Counts a request of `client` (its address); throws ``Throttled`` past the limit.
    public func admit(client: String?) throws {
        guard let throttle, let wait = throttle.take(client.map(ClientNetwork.key) ?? "unknown", now: clock.now()) else { return }
        throw Throttled(retryAfter: wait)
    }

    /// A processing error: the route answers 418.
    public struct Refusal: Error, Sendable, Equatable {
        public let code: Int
        public let message: String
    }

    /// The device's key (``QuickHACDeviceKey``): the uuid itself is its only credential, so it
    /// is never stored. Refuses a uuid that is not one (418, lastError 2).
    func checked(_ uuid: String) throws -> String {
        guard QuickHACDeviceKey.isWellFormed(uuid) else {
            throw Refusal(code: 2, message: "the uuid must be a UUID (8-4-4-4-12 hex digits), alone or after a prefix")
        }
        return deviceKey.key(uuid)
    }

    /// The device stored under `uuid`'s key, or under its old key (moved to the new one now,
    /// with its gradebook accounts).
    func storedDevice(_ uuid: String, key: String) async throws -> Device? {
        if let found = try await transactions.read({ [devices] db in try devices.device(uuidHash: key, in: db) }) { return found }
        let legacy = QuickHACDeviceKey.legacyKey(uuid)
        guard let old = try await transactions.read({ [devices] db in try devices.device(uuidHash: legacy, in: db) }) else { return nil }
        do {
            try await accounts.rekey(deviceKey: legacy, to: key)
        } catch {
            throw Refusal(code: 8, message: "the gradebook could not be reached")
        }
        try await transactions.write { [keys] db in try keys.rekey(deviceID: old.id, to: key, in: db) }
        return old
    }

    /// `register`: 1 for a new device, 0 for a known one (its token updated).
    public func register(uuid: String, token: String?) async throws -> Int {
        let key = try checked(uuid)
        var address = DeviceAddress.log
        if let token, !token.isEmpty {
            do {
                address = .apns(token: try DeviceRules.apnsToken(token), environment: apnsEnvironment, topic: apnsTopic)
            } catch {
                throw Refusal(code: 3, message: "the token is not an APNs device token")
            }
        }
        let now = clock.now()
        let chosen = address
        _ = try await storedDevice(uuid, key: key)
        return try await transactions.write { [devices, retention] db in
            let address = chosen
            if let existing = try devices.device(uuidHash: key, in: db) {
                // Seen now: a device the app still registers does not expire (``PushRetention``).
                if case .apns = address { try devices.reregister(id: existing.id, address: address, at: now, in: db) } else { try retention.markSeen(deviceID: existing.id, at: now, in: db) }
                return 0
            }
            _ = try devices.insert(NewDevice(accountID: nil, uuidHash: key, name: "QuickHAC", address: address), at: now, in: db)
            return 1
        }
    }

    func device(_ uuid: String) async throws -> Device {
        let key = try checked(uuid)
        guard let found = try await storedDevice(uuid, key: key) else { throw Refusal(code: 4, message: "unknown device: register first") }
        return found
    }

    /// `account_add`: 0 added, 1 already there (its password updated). The credentials are
    /// checked upstream as a sign-in from `client` (throttled per username and address).
    public func addAccount(uuid: String, user: String, password: String, district: String, client: String? = nil) async throws -> Int {
        let device = try await device(uuid)
        guard let source = Int64(district), source > 0 else { throw Refusal(code: 5, message: "unknown district") }
        guard (1...200).contains(user.utf8.count), (1...1024).contains(password.utf8.count) else {
            throw Refusal(code: 6, message: "bad username or password")
        }
        let known = try await lookup(uuid: uuid, user: user) != nil
        if !known {
            let count: Int
            do { count = try await accounts.accountCount(deviceKey: deviceKey.key(uuid)) } catch { throw Refusal(code: 8, message: "the gradebook could not be reached") }
            guard count < Self.maximumAccountsPerDevice else {
                throw Refusal(code: 11, message: "a device stores at most \(Self.maximumAccountsPerDevice) accounts")
            }
        }
        do {
            let (_, created) = try await accounts.store(
                deviceKey: deviceKey.key(uuid), sourceID: source, username: user, password: password, clientAddress: client
            )
            _ = device
            return created ? 0 : 1
        } catch .unknownSource {
            throw Refusal(code: 5, message: "unknown district")
        } catch .refused {
            throw Refusal(code: 7, message: "the gradebook refused these credentials")
        } catch .throttled(let seconds) {
            throw Throttled(retryAfter: seconds)
        } catch {
            throw Refusal(code: 8, message: "the gradebook could not be reached")
        }
    }

    /// `account_remove`: 0 removed (with its students), 1 no such account.
    public func removeAccount(uuid: String, user: String) async throws -> Int {
        let device = try await device(uuid)
        guard let account = try await lookup(uuid: uuid, user: user) else { return 1 }
        try await transactions.write { [devices] db in _ = try devices.unlink(deviceID: device.id, gradebookAccountID: account, studentID: nil, in: db) }
        try await remove(account)
        return 0
    }

    /// `student_add`: 0 added, 1 already followed. A student the account can't see upstream (not
    /// itself, not enrolled in a section it sees) is refused (418, lastError 13): every
    /// followed student costs polls, so only real ones are followed.
    public func addStudent(uuid: String, user: String, student: String, client: String? = nil) async throws -> Int {
        let device = try await device(uuid)
        guard (1...64).contains(student.utf8.count) else { throw Refusal(code: 9, message: "bad student id") }
        guard let account = try await lookup(uuid: uuid, user: user) else { throw Refusal(code: 10, message: "unknown account: add it first") }
        let followed = try await transactions.read { [devices] db in
            try devices.links(deviceID: device.id, in: db).filter { $0.gradebookAccountID == account }.map(\.studentID)
        }
        if !followed.contains(student) {
            guard followed.count < Self.maximumStudentsPerAccount else {
                throw Refusal(code: 12, message: "an account follows at most \(Self.maximumStudentsPerAccount) students")
            }
            let visible: Bool
            do {
                visible = try await accounts.sees(student: student, accountID: account, clientAddress: client)
            } catch .throttled(let seconds) {
                throw Throttled(retryAfter: seconds)
            } catch .refused {
                throw Refusal(code: 7, message: "the gradebook refused the stored credentials")
            } catch {
                throw Refusal(code: 8, message: "the gradebook could not be reached")
            }
            guard visible else { throw Refusal(code: 13, message: "this account can't see that student") }
        }
        let now = clock.now()
        let added = try await transactions.write { [devices] db in
            let followed = try devices.links(deviceID: device.id, in: db).filter { $0.gradebookAccountID == account }
            if !followed.contains(where: { $0.studentID == student }), followed.count >= Self.maximumStudentsPerAccount {
                throw Refusal(code: 12, message: "an account follows at most \(Self.maximumStudentsPerAccount) students")
            }
            return try devices.link(deviceID: device.id, gradebookAccountID: account, studentID: student, at: now, in: db)
        }
        return added ? 0 : 1
    }

    /// `student_remove`: 0 removed, 1 not followed. Removing an account's last student removes
    /// the account.
    public func removeStudent(uuid: String, user: String, student: String) async throws -> Int {
        let device = try await device(uuid)
        guard (1...64).contains(student.utf8.count) else { throw Refusal(code: 9, message: "bad student id") }
        guard let account = try await lookup(uuid: uuid, user: user) else { return 1 }
        let (removed, left) = try await transactions.write { [devices] db in
            let removed = try devices.unlink(deviceID: device.id, gradebookAccountID: account, studentID: student, in: db)
            let left = try devices.links(deviceID: device.id, in: db).filter { $0.gradebookAccountID == account }.count
            return (removed, left)
        }
        if removed > 0, left == 0 { try await remove(account) }
        return removed > 0 ? 0 : 1
    }

    /// The account `user` of the device `uuid`, nil when the device has none by that name. A
    /// username no account can have (empty, over 200 bytes) is refused (418, lastError 6).
    private func lookup(uuid: String, user: String) async throws -> Int64? {
        guard (1...200).contains(user.utf8.count) else { throw Refusal(code: 6, message: "bad username or password") }
        do {
            return try await accounts.account(deviceKey: deviceKey.key(uuid), username: user)
        } catch {
            throw Refusal(code: 8, message: "the gradebook could not be reached")
        }
    }

    private func remove(_ account: Int64) async throws {
        do {
            try await accounts.remove(id: account)
        } catch {
            throw Refusal(code: 8, message: "the gradebook could not be reached")
        }
    }
}

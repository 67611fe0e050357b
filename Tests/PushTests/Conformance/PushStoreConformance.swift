import Auth
import Contracts
import Foundation
import GatewayCore
import Gradebook
@testable import PostgresStores
@testable import Push
@testable import SQLiteStores
import Storage
import TestSupport
import Testing

/// Push's stores under test, with Auth's accounts that their rows belong to, and a device
/// store of the same backend without a vault (to see what sealed keys are to a reader that
/// can't open them).
struct PushTestStores: Sendable {
    let stores: PushStores
    let accounts: any AccountStoring
    let devicesWithoutVault: any DeviceStoring
}

/// The credential vault the stores seal device keys with: the real vault (Gradebook's key
/// ring, AES-GCM bound to the row), under a fixed test key.
struct TestVaultSealing: SecretSealing {
    let ring = VaultKeyRing(current: VaultKey(bytes: [UInt8](repeating: 0x5A, count: 32))!)

    func seal(_ plaintext: String, context: SecretContext) throws -> String {
        try ring.seal(plaintext, context: VaultContext(table: context.table, rowID: context.rowID, owner: context.owner))
    }

    func open(_ sealed: String, context: SecretContext) throws -> String {
        try ring.open(sealed, context: VaultContext(table: context.table, rowID: context.rowID, owner: context.owner))
    }
}

/// The backends every test of ``PushStoreConformance`` runs on.
enum PushBackend {
    static let all: [StoreBackend<PushTestStores>] = [
        .sqlite("push-conformance", modules: [AuthSchema.self, PushSchema.self]) { database in
            PushTestStores(
                stores: .sqlite(database: database, sealer: TestVaultSealing()), accounts: SQLiteAccountStore(), devicesWithoutVault: SQLiteDeviceStore()
            )
        },
        .postgres("push", modules: [AuthSchema.self, PushSchema.self]) { _ in
            PushTestStores(stores: .postgres(sealer: TestVaultSealing()), accounts: PostgresAccountStore(), devicesWithoutVault: PostgresDeviceStore())
        },
    ]
}

/// The promises Push's stores make, through their protocols only, on SQLite and PostgreSQL
/// alike: devices and their sealed keys (bound to their rows), the outbox, preferences, seat
/// and grade alerts, the email channel's rows, the QuickHAC secret and retention. Split by
/// concept across the files of this folder.
@Suite("Push store conformance")
struct PushStoreConformance {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let token = String(repeating: "ab", count: 32)

    /// Runs `body` on a fresh backend with two students (ada, grace), whose ids it is given.
    static func withStores(
        _ backend: StoreBackend<PushTestStores>, _ body: (any TransactionRunner, PushTestStores, _ ada: Int64, _ grace: Int64) async throws -> Void
    ) async throws {
        try await backend.with { transactions, under in
            let owners = try await transactions.write { tx throws in
                try ["ada", "grace"].map { name in
                    try #require(try under.accounts.insert(Account(username: name, email: nil, passwordHash: "x", role: .student, createdAt: Self.start), in: tx).id)
                }
            }
            try await body(transactions, under, owners[0], owners[1])
        }
    }

    static func apns(_ accountID: Int64?, uuidHash: String? = nil, name: String = "phone") -> NewDevice {
        NewDevice(accountID: accountID, uuidHash: uuidHash, name: name, address: .apns(token: token, environment: .sandbox, topic: "edu.example.app"))
    }

    @Test(arguments: PushBackend.all)
    func devicesAreRegisteredAndReadBackByTheirOwners(_ backend: StoreBackend<PushTestStores>) async throws {
        try await Self.withStores(backend) { transactions, under, ada, grace in
            let devices = under.stores.devices
            let (phone, mail, quickHAC) = try await transactions.write { tx throws in
                (
                    try devices.insert(Self.apns(ada), at: Self.start, in: tx),
                    try devices.insert(NewDevice(accountID: ada, name: "mail", address: .email(address: "ada@example.edu"), active: false), at: Self.start, in: tx),
                    try devices.insert(Self.apns(nil, uuidHash: "q-hash"), at: Self.start, in: tx)
                )
            }
            #expect(phone.id != mail.id && mail.id != quickHAC.id)
            #expect(phone.channel == .apns && mail.channel == .email && !mail.active && phone.active)
            try await transactions.read { tx throws in
                #expect(try devices.device(id: phone.id, in: tx) == phone, "read back as inserted")
                #expect(try devices.devices(ofAccount: ada, in: tx) == [phone, mail], "the owner's devices, in order")
                #expect(try devices.devices(ofAccount: grace, in: tx).isEmpty, "another student's devices are not hers")
                #expect(try devices.device(uuidHash: "q-hash", in: tx) == quickHAC)
                #expect(try devices.device(uuidHash: "other", in: tx) == nil)
                #expect(try devices.device(id: quickHAC.id + 100, in: tx) == nil)
            }
        }
    }

    @Test(arguments: PushBackend.all)
    func failuresDeactivateAndReregisteringRevives(_ backend: StoreBackend<PushTestStores>) async throws {
        try await Self.withStores(backend) { transactions, under, ada, _ in
            let devices = under.stores.devices
            try await transactions.write { tx throws in
                let phone = try devices.insert(Self.apns(ada), at: Self.start, in: tx)
                try devices.recordFailure(id: phone.id, error: "timeout", deactivate: false, at: Self.start + 1, in: tx)
                try devices.recordFailure(id: phone.id, error: String(repeating: "x", count: 500), deactivate: true, at: Self.start + 2, in: tx)
                var read = try #require(try devices.device(id: phone.id, in: tx))
                #expect(!read.active && read.failureCount == 2 && read.lastFailureAt == Self.start + 2)
                #expect(read.lastError?.count == 300, "errors are cut to 300 characters")
                try devices.recordSuccess(id: phone.id, at: Self.start + 3, in: tx)
                read = try #require(try devices.device(id: phone.id, in: tx))
                #expect(read.failureCount == 0 && read.lastSuccessAt == Self.start + 3 && !read.active, "success alone doesn't revive")

                let moved = DeviceAddress.apns(token: String(repeating: "cd", count: 32), environment: .production, topic: "edu.example.app")
                try devices.reregister(id: phone.id, address: moved, at: Self.start + 4, in: tx)
                read = try #require(try devices.device(id: phone.id, in: tx))
                #expect(read.active && read.address == moved && read.registeredAt == Self.start + 4 && read.createdAt == Self.start)

                try devices.confirmEmail(id: phone.id, at: Self.start + 5, in: tx)
                #expect(try devices.device(id: phone.id, in: tx)?.confirmedAt == nil, "only an email device is confirmed")
                let mail = try devices.insert(NewDevice(accountID: ada, name: "m", address: .email(address: "a@example.edu"), active: false), at: Self.start, in: tx)
                try devices.confirmEmail(id: mail.id, at: Self.start + 5, in: tx)
                read = try #require(try devices.device(id: mail.id, in: tx))
                #expect(read.active && read.confirmedAt == Self.start + 5)

                try devices.mute(id: mail.id, category: "seat.open", in: tx)
                try devices.mute(id: mail.id, category: "grade.new", in: tx)
                try devices.mute(id: mail.id, category: "seat.open", in: tx)
                #expect(try devices.device(id: mail.id, in: tx)?.mutedCategories == ["seat.open", "grade.new"])

                #expect(try devices.delete(id: phone.id, in: tx))
                #expect(try !devices.delete(id: phone.id, in: tx), "already gone")
                #expect(try devices.devices(ofAccount: ada, in: tx).map(\.id) == [mail.id])
            }
        }
    }

    @Test(arguments: PushBackend.all)
    func sealedKeysAreBoundToTheirRows(_ backend: StoreBackend<PushTestStores>) async throws {
        try await Self.withStores(backend) { transactions, under, ada, grace in
            let devices = under.stores.devices
            let secret = Data((0..<32).map { UInt8($0) })
            let hookAddress = DeviceAddress.webhook(url: URL(string: "https://hooks.example.com/ada")!, secret: secret)
            let pushAddress = DeviceAddress.webPush(endpoint: URL(string: "https://push.example.net/sub/1")!, p256dh: "BNcR-p256dh-key", auth: "auth-secret-1")
            let (hook, push) = try await transactions.write { tx throws in
                (
                    try devices.insert(NewDevice(accountID: ada, name: "hook", address: hookAddress), at: Self.start, in: tx),
                    try devices.insert(NewDevice(accountID: grace, name: "browser", address: pushAddress), at: Self.start, in: tx)
                )
            }
            let sealed = try await transactions.read { tx throws in
                #expect(try devices.device(id: hook.id, in: tx)?.address == hookAddress, "opened on read")
                #expect(try devices.device(id: push.id, in: tx)?.address == pushAddress)
                #expect(try under.devicesWithoutVault.device(id: hook.id, in: tx)?.keysUnavailable == true, "no vault: unavailable")
                #expect(try devices.sealClearKeys(in: tx) == 0, "nothing was ever written in clear")
                return try devices.sealedKeys(in: tx)
            }
            #expect(sealed.map(\.context) == [
                SecretContext(table: "push_devices", rowID: hook.id, owner: ada), SecretContext(table: "push_devices", rowID: push.id, owner: grace),
            ])
            #expect(sealed.allSatisfy { !$0.sealed.contains("auth-secret-1") && !$0.sealed.contains("BNcR") })
            try await transactions.write { tx throws in
                #expect(throws: DeviceKeysUnsealable.self) {
                    try under.devicesWithoutVault.insert(NewDevice(accountID: ada, name: "h", address: hookAddress), at: Self.start, in: tx)
                }
                // Keys moved to another row don't open there: they are bound to the row they were sealed for.
                #expect(try !devices.replaceSealedKeys(deviceID: hook.id, expected: "stale", with: sealed[1].sealed, in: tx), "compare-and-swap")
                #expect(try devices.replaceSealedKeys(deviceID: hook.id, expected: sealed[0].sealed, with: sealed[1].sealed, in: tx))
                let moved = try #require(try devices.device(id: hook.id, in: tx))
                #expect(moved.keysUnavailable && moved.address == .webhook(url: URL(string: "https://hooks.example.com/ada")!, secret: Data()))
                #expect(try !devices.deleteDevice(id: push.id, sealedKeys: sealed[0].sealed, in: tx), "only while the keys are the ones read")
                #expect(try devices.deleteDevice(id: push.id, sealedKeys: sealed[1].sealed, in: tx))
                #expect(try devices.device(id: push.id, in: tx) == nil)
                // Re-registering seals the new keys for the row afresh.
                try devices.reregister(id: hook.id, address: pushAddress, at: Self.start + 9, in: tx)
                #expect(try devices.device(id: hook.id, in: tx)?.address == pushAddress)
                #expect(try devices.device(id: hook.id, in: tx)?.channel == .webpush)
            }
        }
    }

    @Test(arguments: PushBackend.all)
    func studentsAreFollowedByActiveDevicesAndWindowsClaimedOnce(_ backend: StoreBackend<PushTestStores>) async throws {
        try await Self.withStores(backend) { transactions, under, _, _ in
            let devices = under.stores.devices
            try await transactions.write { tx throws in
                let one = try devices.insert(Self.apns(nil, uuidHash: "q1"), at: Self.start, in: tx)
                let two = try devices.insert(Self.apns(nil, uuidHash: "q2"), at: Self.start, in: tx)
                #expect(try devices.link(deviceID: one.id, gradebookAccountID: 7, studentID: "s1", at: Self.start, in: tx))
                #expect(try !devices.link(deviceID: one.id, gradebookAccountID: 7, studentID: "s1", at: Self.start, in: tx), "already linked")
                #expect(try devices.link(deviceID: one.id, gradebookAccountID: 7, studentID: "s2", at: Self.start, in: tx))
                #expect(try devices.link(deviceID: two.id, gradebookAccountID: 7, studentID: "s1", at: Self.start, in: tx))
                #expect(try devices.link(deviceID: two.id, gradebookAccountID: 9, studentID: "s9", at: Self.start, in: tx))
                #expect(try devices.links(deviceID: one.id, in: tx).map { "\($0.gradebookAccountID)/\($0.studentID)" } == ["7/s1", "7/s2"])
                #expect(try devices.followers(gradebookAccountID: 7, studentID: "s1", in: tx) == [one.id, two.id])
                try devices.recordFailure(id: two.id, error: "gone", deactivate: true, at: Self.start, in: tx)
                #expect(try devices.followers(gradebookAccountID: 7, studentID: "s1", in: tx) == [one.id], "inactive devices follow nobody")
                #expect(try devices.followedStudents(in: tx).map { "\($0.gradebookAccountID)/\($0.studentID)" } == ["7/s1", "7/s2"])

                #expect(try devices.claimPollWindow(gradebookAccountID: 7, studentID: "s1", windowStart: 600, in: tx))
                #expect(try !devices.claimPollWindow(gradebookAccountID: 7, studentID: "s1", windowStart: 600, in: tx), "claimed once")
                #expect(try !devices.claimPollWindow(gradebookAccountID: 7, studentID: "s1", windowStart: 300, in: tx), "an earlier window")
                #expect(try devices.claimPollWindow(gradebookAccountID: 7, studentID: "s1", windowStart: 900, in: tx))
                #expect(try devices.claimPollWindow(gradebookAccountID: 9, studentID: "s9", windowStart: 900, in: tx))
                try devices.forgetUnfollowedPollWindows(in: tx)
                #expect(try !devices.claimPollWindow(gradebookAccountID: 7, studentID: "s1", windowStart: 900, in: tx), "still followed: kept")
                #expect(try devices.claimPollWindow(gradebookAccountID: 9, studentID: "s9", windowStart: 900, in: tx), "unfollowed: forgotten")

                #expect(try devices.unlink(deviceID: one.id, gradebookAccountID: 7, studentID: "s2", in: tx) == 1)
                #expect(try devices.unlink(deviceID: two.id, gradebookAccountID: 7, studentID: nil, in: tx) == 1)
                #expect(try devices.unlink(deviceID: one.id, gradebookAccountID: 7, studentID: nil, in: tx) == 1)
                #expect(try devices.links(deviceID: one.id, in: tx).isEmpty)
            }
        }
    }

    @Test(arguments: PushBackend.all)
    func theQuickHACSecretIsRandomStableAndRekeyingMovesADevice(_ backend: StoreBackend<PushTestStores>) async throws {
        var secrets: [Data] = []
        for _ in 0..<2 {
            try await Self.withStores(backend) { transactions, under, _, _ in
                let keys = under.stores.quickHACKeys
                let first = try await transactions.read { tx throws in try keys.deviceKeySecret(in: tx) }
                let again = try await transactions.write { tx throws in try keys.deviceKeySecret(in: tx) }
                #expect(first.count == 32 && first == again, "32 bytes, the same on every call")
                #expect(Set(first).count > 8, "not a constant fill")
                secrets.append(first)
                try await transactions.write { tx throws in
                    let device = try under.stores.devices.insert(Self.apns(nil, uuidHash: "old-key"), at: Self.start, in: tx)
                    try keys.rekey(deviceID: device.id, to: "new-key", in: tx)
                    #expect(try under.stores.devices.device(uuidHash: "new-key", in: tx)?.id == device.id)
                    #expect(try under.stores.devices.device(uuidHash: "old-key", in: tx) == nil)
                }
            }
        }
        #expect(secrets[0] != secrets[1], "each database makes its own")
    }

    @Test(arguments: PushBackend.all)
    func retentionFindsStaleQuickHACDevicesAndPrunesFinishedNotifications(_ backend: StoreBackend<PushTestStores>) async throws {
        try await Self.withStores(backend) { transactions, under, ada, _ in
            let (devices, retention, outbox) = (under.stores.devices, under.stores.retention, under.stores.notifications)
            let day: TimeInterval = 86400
            try await transactions.write { tx throws in
                let lonely = try devices.insert(Self.apns(nil, uuidHash: "lonely"), at: Self.start, in: tx)
                let following = try devices.insert(Self.apns(nil, uuidHash: "following"), at: Self.start, in: tx)
                let forgotten = try devices.insert(Self.apns(nil, uuidHash: "forgotten"), at: Self.start, in: tx)
                let fresh = try devices.insert(Self.apns(nil, uuidHash: "fresh"), at: Self.start, in: tx)
                let owned = try devices.insert(Self.apns(ada, uuidHash: "owned"), at: Self.start, in: tx)
                _ = try devices.link(deviceID: following.id, gradebookAccountID: 1, studentID: "s", at: Self.start, in: tx)
                _ = try devices.link(deviceID: forgotten.id, gradebookAccountID: 1, studentID: "s", at: Self.start, in: tx)
                try retention.markSeen(deviceID: lonely.id, at: Self.start + 10 * day, in: tx)
                try retention.markSeen(deviceID: following.id, at: Self.start + 10 * day, in: tx)
                try retention.markSeen(deviceID: fresh.id, at: Self.start + 40 * day, in: tx)
                let now = Self.start + 41 * day
                let expired = try retention.expiredQuickHACDevices(unfollowedBefore: now - 30 * day, unseenBefore: now - 35 * day, limit: 10, in: tx)
                #expect(expired.map(\.id) == [lonely.id, forgotten.id] && expired.map(\.key) == ["lonely", "forgotten"])
                #expect(!expired.contains { $0.id == owned.id || $0.id == following.id || $0.id == fresh.id })
                #expect(try retention.expiredQuickHACDevices(unfollowedBefore: now - 30 * day, unseenBefore: now - 35 * day, limit: 1, in: tx).map(\.id) == [lonely.id])

                let phone = try devices.insert(Self.apns(ada), at: Self.start, in: tx)
                func queue(_ key: String, at time: Date) throws -> Int64 {
                    try #require(try outbox.insert(
                        deviceID: phone.id, uniqueKey: key, notification: OutgoingNotification(id: key, category: "test", title: "t", body: "b"),
                        at: time, deliverAt: time, in: tx
                    ))
                }
                let oldDelivered = try queue("old-delivered", at: Self.start)
                let oldFailed = try queue("old-failed", at: Self.start)
                let oldPending = try queue("old-pending", at: Self.start)
                let newDelivered = try queue("new-delivered", at: Self.start + 20 * day)
                try outbox.record(id: oldDelivered, state: .delivered, error: nil, at: Self.start + 1, in: tx)
                try outbox.record(id: oldFailed, state: .failed, error: "410", at: Self.start + 1, in: tx)
                try outbox.record(id: newDelivered, state: .delivered, error: nil, at: Self.start + 20 * day, in: tx)
                #expect(try retention.pruneNotifications(finishedBefore: Self.start + 10 * day, in: tx) == 2)
                #expect(try outbox.notification(id: oldDelivered, in: tx) == nil && outbox.notification(id: oldFailed, in: tx) == nil)
                #expect(try outbox.notification(id: oldPending, in: tx) != nil, "pending ones stay, however old")
                #expect(try outbox.notification(id: newDelivered, in: tx) != nil)
            }
        }
    }
}

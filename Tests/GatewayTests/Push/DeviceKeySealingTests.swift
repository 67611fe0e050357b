import Auth
import Contracts
import Foundation
import GatewayApp
import GatewayCore
import GRDB
import Gradebook
import HTTPTypes
import HummingbirdTesting
import Jobs
import Logging
import Push
import Storage
import Testing
import TestSupport
import SQLiteStorage


/// Webhook secrets and Web Push keys are sealed by the vault, bound to their device rows: never
/// in clear in the database, sealed at start when an older server wrote them in clear, re-sealed
/// by key rotation, and never used when no key opens them.
@Suite("Sealed device keys", .serialized)
struct DeviceKeySealingTests {
    // MARK: 3. Device keys are sealed

    /// The webhook secret and Web Push keys never reach the database in clear (neither the row
    /// nor the file's bytes); deliveries still sign with the secret shown at registration, and
    /// key rotation re-seals them.
    @Test func deviceKeysAreSealedAndDeliveriesStillSign() async throws {
        let receiver = try LoopbackReceiver(behaviour: .answer, lifetime: .seconds(300))
        defer { receiver.stop() }
        let gateway = try TestGateway {
            $0.allowInsecurePushEndpoints = true
            $0.jobs.workersEnabled = false
        }
        defer { gateway.cleanUp() }
        let ada = try await gateway.account("ada", role: .student)
        let ids = Captured<(webhook: Int, webPush: Int, secret: String)>((0, 0, ""))
        try await gateway.withRouter { client async throws in
            let webhook = try await client.json(.post, "/v1/me/devices", body: #"{"channel": "webhook", "url": "\#(receiver.url())"}"#, token: ada)
            let secret = try #require(webhook.object["webhookSecret"] as? String)
            let webPush = try await client.json(
                .post, "/v1/me/devices",
                body: #"{"channel": "webpush", "endpoint": "https://push.example.net/sub/1", "p256dh": "\#(PushTestValues.p256dh)", "auth": "\#(PushTestValues.auth)"}"#,
                token: ada
            )
            ids.set((try PushTestValues.deviceID(webhook), try PushTestValues.deviceID(webPush), secret))
        }
        let secret = try #require(WebhookSecret(displayValue: ids.value.secret))
        let rows = try await gateway.app.database.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM push_devices WHERE id IN (?, ?) ORDER BY id", arguments: [ids.value.webhook, ids.value.webPush])
        }
        #expect(rows.count == 2)
        for row in rows {
            for column in ["webhook_secret", "p256dh", "auth_secret"] { #expect((row[column] as DatabaseValue).isNull, "\(column)") }
            let sealed: String = try #require(row["sealed_keys"])
            #expect(sealed.hasPrefix("v1."))
            let text = row.description
            #expect(!text.contains(PushTestValues.auth) && !text.contains(PushTestValues.p256dh) && !text.contains(secret.bytes.base64EncodedString()))
        }
        let files = try Self.databaseBytes(gateway)
        #expect(files.firstRange(of: secret.bytes) == nil, "the secret's bytes are nowhere in the database files")
        #expect(files.firstRange(of: Data(PushTestValues.auth.utf8)) == nil && files.firstRange(of: Data(PushTestValues.p256dh.utf8)) == nil)

        // Deliveries sign with the secret the student was shown.
        try await Self.sendTestAndVerify(gateway, token: ada, device: ids.value.webhook, receiver: receiver, secret: secret.bytes)

        // Rotation re-seals the device keys with the gradebook passwords; deliveries go on.
        let before = try await Self.sealedKeys(gateway, device: ids.value.webhook)
        let report = try await VaultRotation(settle: .zero).rotateKey(source: gateway.app.vault.source, rows: gateway.app.vaultRows)
        #expect(report.reEncrypted >= 2 && report.unreadable.isEmpty, "\(report)")
        let after = try await Self.sealedKeys(gateway, device: ids.value.webhook)
        #expect(after != before && after.hasPrefix("v1.\(report.keyID)."))
        try await Self.sendTestAndVerify(gateway, token: ada, device: ids.value.webhook, receiver: receiver, secret: secret.bytes)
    }

    /// A gateway on a database file in `directory` that a test opens, closes and opens again:
    /// loopback webhooks allowed, no background workers (the test works the queue), no
    /// environment keys (the vault's key file sits beside the database).
    static func restartableConfiguration(in directory: URL) -> GatewayConfiguration {
        var configuration = GatewayConfiguration()
        configuration.databasePath = directory.appendingPathComponent("gateway.sqlite").path
        configuration.logLevel = .critical
        configuration.allowInsecurePushEndpoints = true
        configuration.jobs.workersEnabled = false
        configuration.environment = [:]
        return configuration
    }

    /// A device written in clear by the schema before `push.008` (an older server) is sealed
    /// when the server starts, its clear columns emptied (and the bytes gone from the files),
    /// and it still gets signed deliveries; starting again changes nothing.
    @Test func clearKeysFromTheOldSchemaAreSealedAtStart() async throws {
        let receiver = try LoopbackReceiver(behaviour: .answer, lifetime: .seconds(300))
        defer { receiver.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = Self.restartableConfiguration(in: directory)
        let secret = WebhookSecret.generate()
        do {
            // The old schema: every migration up to push.007, and rows written the old way.
            let old = try GatewayDatabase(path: configuration.databasePath, modules: GatewayApplication.schemaModules)
            try makeMigrator(GatewayApplication.schemaModules).migrate(old.pool, upTo: "push.007.email")
            try await old.pool.write { db in
                try db.execute(sql: "INSERT INTO accounts (username, password_hash, role, created_at) VALUES ('ada', 'x', 'student', ?)", arguments: [Date()])
                try db.execute(
                    sql: """
                        INSERT INTO push_devices (account_id, channel, name, endpoint, webhook_secret, created_at, registered_at)
                        VALUES (1, 'webhook', 'old hook', ?, ?, ?, ?)
                        """,
                    arguments: [receiver.url(), secret.bytes, Date(), Date()]
                )
                try db.execute(
                    sql: """
                        INSERT INTO push_devices (account_id, channel, name, endpoint, p256dh, auth_secret, created_at, registered_at)
                        VALUES (1, 'webpush', 'old browser', 'https://push.example.net/sub/2', ?, ?, ?, ?)
                        """,
                    arguments: [PushTestValues.p256dh, PushTestValues.auth, Date(), Date()]
                )
            }
        }
        let clock = ManualClock(Date())
        let app = try GatewayApplication(configuration: configuration, clock: clock)
        let rows = try await app.database.pool.read { db in try Row.fetchAll(db, sql: "SELECT * FROM push_devices ORDER BY id") }
        #expect(rows.count == 2)
        for row in rows {
            #expect((row["webhook_secret"] as Data?) == nil && (row["p256dh"] as String?) == nil && (row["auth_secret"] as String?) == nil)
            #expect((row["sealed_keys"] as String?)?.hasPrefix("v1.") == true)
        }
        var files = Data()
        for suffix in ["", "-wal"] { files.append((try? Data(contentsOf: URL(fileURLWithPath: configuration.databasePath + suffix))) ?? Data()) }
        #expect(files.firstRange(of: secret.bytes) == nil, "the clear secret's bytes are zeroed, not left in free space")
        #expect(files.firstRange(of: Data(PushTestValues.auth.utf8)) == nil)

        // It still works: a signed delivery with the old secret, through the real channel.
        let devices = try await app.pushDevices.devices(accountID: 1)
        #expect(devices.map(\.channel) == [.webhook, .webpush])
        #expect(devices.first?.address == .webhook(url: URL(string: receiver.url())!, secret: secret.bytes))
        #expect(devices.last?.address == .webPush(endpoint: URL(string: "https://push.example.net/sub/2")!, p256dh: PushTestValues.p256dh, auth: PushTestValues.auth))
        let note = OutgoingNotification(id: "after-upgrade", category: "grade.new", title: "New grade", body: "A")
        #expect(try await app.outbox.notify(deviceID: devices[0].id, uniqueKey: "after-upgrade", note))
        _ = try await app.runQueuedJobs(queue: PushJobs.queue)
        let request = try #require(receiver.requests.last)
        try WebhookSignature.verify(
            id: request.headers["webhook-id"] ?? "", timestamp: request.headers["webhook-timestamp"] ?? "", body: request.body,
            signatures: request.headers["webhook-signature"] ?? "", secret: secret.bytes, now: clock.now()
        )

        // Idempotent: a second start finds nothing in clear and changes no sealed value.
        let sealed = try await app.database.pool.read { db in try String.fetchAll(db, sql: "SELECT sealed_keys FROM push_devices ORDER BY id") }
        let again = try GatewayApplication(configuration: configuration, clock: clock)
        #expect(try await again.database.pool.read { db in try String.fetchAll(db, sql: "SELECT sealed_keys FROM push_devices ORDER BY id") } == sealed)
    }

    /// A database a server without `push.008` migrated (it has the later `push.009`) takes
    /// `push.008` at the next start, and is then complete and ready.
    @Test func aDatabaseMigratedPastPush008WithoutItTakesItLater() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = GatewayConfiguration()
        configuration.databasePath = directory.appendingPathComponent("gateway.sqlite").path
        configuration.logLevel = .critical
        configuration.environment = [:]
        do {
            let old = try GatewayDatabase(path: configuration.databasePath, modules: GatewayApplication.schemaModules)
            var migrator = DatabaseMigrator()
            for module in GatewayApplication.schemaModules {
                for migration in module.migrations where migration.identifier != "push.008.user-endpoints" {
                    migrator.registerMigration(migration.identifier, migrate: migration.apply)
                }
            }
            try migrator.migrate(old.pool)
        }
        let app = try GatewayApplication(configuration: configuration)
        #expect(app.database.isReady())
        #expect(try app.database.pendingMigrations().isEmpty)
        let columns = try await app.database.pool.read { db in try db.columns(in: "push_devices").map(\.name) }
        #expect(columns.contains("sealed_keys"))
    }

    /// With the vault's key lost, sealed device keys can't be opened: such a device is listed
    /// but never delivered to (nothing reaches its receiver, unsigned or otherwise), the server
    /// refuses to start counting it, and forgetting the unreadable deletes the device.
    @Test func deviceKeysUnderALostVaultKeyAreNeverUsedAndCanBeForgotten() async throws {
        let receiver = try LoopbackReceiver(behaviour: .answer, lifetime: .seconds(300))
        defer { receiver.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = Self.restartableConfiguration(in: directory)
        configuration.passwordHashing = .init(memoryKiB: 1024, iterations: 1, parallelism: 1)
        let first = try GatewayApplication(configuration: configuration)
        let account = try await first.accounts.createAccount(username: "ada", email: nil, password: "correct horse battery", role: .student)
        let accountID = try #require(account.id)
        let (device, _) = try await first.pushDevices.register(accountID: accountID, DeviceService.Registration(channel: "webhook", url: receiver.url()))
        try await first.checkVault()

        try FileManager.default.removeItem(atPath: configuration.databasePath + ".vault-keys")
        let clock = ManualClock(Date())
        let second = try GatewayApplication(configuration: configuration, clock: clock)
        await #expect(throws: StartupRefusal.self) { try await second.checkVault() }
        let listed = try await second.pushDevices.devices(accountID: accountID)
        #expect(listed.map(\.id) == [device.id] && listed.first?.keysUnavailable == true)
        let note = OutgoingNotification(id: "lost-key", category: "grade.new", title: "New grade", body: "A")
        #expect(try await second.outbox.notify(deviceID: device.id, uniqueKey: "lost-key", note))
        _ = try await second.runQueuedJobs(queue: PushJobs.queue)
        #expect(receiver.requests.isEmpty, "nothing is sent without the device's secret")
        let row = try #require(try await second.outbox.recent(state: nil, deviceIDs: [device.id], limit: 1).first)
        #expect(row.state == .pending && row.lastError == "the device's keys can't be opened on this server")

        let audit = VaultAudit()
        let report = try await audit.audit(rows: second.vaultRows, ring: second.vault.ring)
        #expect(report.unreadable.count == 1 && report.checked == 1)
        #expect(try await audit.forget(report) == 1)
        #expect(try await second.pushDevices.devices(accountID: accountID).isEmpty)
        try await second.checkVault()
    }

    // MARK: Helpers

    /// Every byte of the database file and its write-ahead log.
    static func databaseBytes(_ gateway: TestGateway) throws -> Data {
        var bytes = Data()
        for suffix in ["", "-wal"] {
            bytes.append((try? Data(contentsOf: URL(fileURLWithPath: gateway.app.database.path + suffix))) ?? Data())
        }
        return bytes
    }

    static func sealedKeys(_ gateway: TestGateway, device: Int) async throws -> String {
        try await gateway.app.database.pool.read { db in
            try #require(try String.fetchOne(db, sql: "SELECT sealed_keys FROM push_devices WHERE id = ?", arguments: [device]))
        }
    }

    /// Asks for a test notification through the router, works the push queue, and checks the
    /// receiver got it signed with `secret`.
    static func sendTestAndVerify(_ gateway: TestGateway, token: String, device: Int, receiver: LoopbackReceiver, secret: Data) async throws {
        let before = receiver.requests.count
        try await gateway.withRouter { client async throws in
            #expect(try await client.json(.post, "/v1/me/devices/\(device)/test", token: token).object["queued"] as? Bool == true)
        }
        var finished = try await gateway.app.runQueuedJobs(queue: PushJobs.queue)
        // On a loaded machine a delivery may be put off (a lane busy, a slow loopback answer):
        // it is retried later, so move the clock on and work the queue again.
        for _ in 0..<5 where receiver.requests.count == before {
            gateway.clock.advance(by: 300)
            finished += try await gateway.app.runQueuedJobs(queue: PushJobs.queue)
        }
        #expect(receiver.requests.count == before + 1, "\(finished)")
        let request = try #require(receiver.requests.last)
        try WebhookSignature.verify(
            id: request.headers["webhook-id"] ?? "", timestamp: request.headers["webhook-timestamp"] ?? "", body: request.body,
            signatures: request.headers["webhook-signature"] ?? "", secret: secret, now: gateway.clock.now()
        )
        let devices = try await gateway.app.pushDevices.devices(accountID: try #require(try await gateway.accountID("ada")))
        #expect(devices.first { $0.id == Int64(device) }?.lastSuccessAt != nil)
    }
}

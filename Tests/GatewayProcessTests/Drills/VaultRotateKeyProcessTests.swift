import Foundation
import GradebookTestSupport
import GRDB
import Gradebook
import Synchronization
import TestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `gateway vault rotate-key`, the real binary, end to end, as docs/operations.md ("Rotating
/// keys") tells an operator to run it, while `gateway serve` serves the same database: on an
/// SQLite file with its key file, and on PostgreSQL with `GATEWAY_VAULT_KEY` and `--env`.
///
/// The sealed rows are real ones, made through the API of a production server (not a demo:
/// `rotate-key` refuses demo databases): a student's stored gradebook account and a QuickHAC
/// device's gradebook account (their passwords, at a `gradebook-sim` child process, a
/// development source) and a webhook device (its signing secret; https to loopback, which
/// `--push-allowed-destinations` lets it reach). After the rotation every sealed value names
/// the new key and no other, and the served data still opens: the stored account signs in at
/// the gradebook with its password, and the webhook device's test notification is sent (its
/// connection reaches the webhook's address, which a device whose keys can't be opened never
/// does). First on the server that served throughout, then on one started with only the new
/// key, which opens every sealed value at start or refuses to serve.
@Suite("Vault key rotation by the gateway binary", .serialized)
struct VaultRotateKeyProcessTests {
    static let adminPassword = "a long admin passphrase"
    static let studentPassword = "a long student passphrase"
    static let sourceID = 7

    /// What the test stored through the API, to check it afterwards.
    struct Stored: Sendable {
        var token: String
        var device: Int
    }

    @Test func rotatingTheKeyFileWhileServingSQLite() async throws {
        let directory = try Drill.scratchDirectory("vault-rotate")
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("gateway.sqlite").path
        let keyFile = database + ".vault-keys"
        let made = try await GatewayBinary.run(Self.createAdmin(database))
        #expect(made.status == 0, "\(made.stderr)")
        let (simulator, webhook) = try await Drill.offThread { try Self.peers(directory) }
        defer { simulator.stop(); webhook.stop() }
        let sealed: @Sendable () async throws -> [String] = {
            let queue = try DatabaseQueue(path: database)
            defer { try? queue.close() }
            return try await queue.read { db in try String.fetchAll(db, sql: Self.sealedValuesQuery) }
        }

        let arguments = Self.serve(database)
        let server = try await ServingGateway.started(arguments: arguments, lifetime: 300)
        defer { _ = server.terminate() }
        let stored = try await Self.store(port: server.port, simulator: simulator, webhook: webhook)
        let oldKeys = try Self.keyIDs(inFile: keyFile)
        #expect(oldKeys.count == 1, "one key before the rotation: \(oldKeys)")
        let before = try await sealed()
        #expect(before.count == 3 && before.allSatisfy { Self.keyID(of: $0) == oldKeys.first }, "sealed under the first key: \(before.map(Self.keyID))")
        try await Self.expectServed(port: server.port, stored, webhook: webhook, "before the rotation")

        let (rotated, during) = try await Self.whileReading(port: server.port, stored) {
            try GatewayBinary.runBlocking(["vault", "rotate-key", "--database", database])
        }
        #expect(rotated.status == 0, "\(rotated.stdout) \(rotated.stderr)")
        #expect(during.allSatisfy { $0 == 200 }, "the stored account kept working during the rotation: \(during)")
        let newKeys = try Self.keyIDs(inFile: keyFile)
        #expect(newKeys.count == 1 && newKeys.first != oldKeys.first, "the key file holds the new key alone: \(newKeys), was \(oldKeys)")
        let after = try await sealed()
        #expect(after.count == 3 && after.allSatisfy { Self.keyID(of: $0) == newKeys.first }, "every value re-sealed under the new key: \(after.map(Self.keyID))")
        #expect(Set(after).isDisjoint(with: before))

        // The server that served throughout re-reads the file and opens them.
        try await Self.expectServed(port: server.port, stored, webhook: webhook, "on the server that served throughout")
        #expect(server.terminate() == 0)
        let restarted = try await ServingGateway.started(arguments: arguments, lifetime: 300)
        defer { _ = restarted.terminate() }
        try await Self.expectServed(port: restarted.port, stored, webhook: webhook, "on a server started after the rotation")
    }

    /// The environment's keys, in the order docs/operations.md gives: the new key as current
    /// with the old one as previous (a restart), `rotate-key --env` while that server serves,
    /// then the old key gone (another restart).
    @Test func resealingUnderTheEnvironmentKeyWhileServingPostgreSQL() async throws {
        let directory = try Drill.scratchDirectory("vault-rotate-pg")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cluster = try await PostgresCluster.start()
        let database = try await cluster.database("vaultrotate")
        let name = try #require(URLComponents(string: database).map { String($0.path.dropFirst()) })
        let sealed: @Sendable () async throws -> [String] = {
            try await PostgresCluster.offThread { try cluster.sql(Self.sealedValuesQuery, database: name) }
                .split(separator: "\n").map(String.init)
        }
        let oldBytes = Data((0..<32).map { _ in UInt8.random(in: 0...255) }), newBytes = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        let oldID = try #require(VaultKey(bytes: oldBytes)?.id), newID = try #require(VaultKey(bytes: newBytes)?.id)
        let oldOnly = [VaultKeySource.keyVariable: oldBytes.base64EncodedString()]
        let newWithOld = [VaultKeySource.keyVariable: newBytes.base64EncodedString(), VaultKeySource.previousKeysVariable: oldBytes.base64EncodedString()]
        let newOnly = [VaultKeySource.keyVariable: newBytes.base64EncodedString()]
        let arguments = Self.serve(database)
        let made = try await GatewayBinary.run(Self.createAdmin(database), environment: oldOnly)
        #expect(made.status == 0, "\(made.stderr)")
        let (simulator, webhook) = try await Drill.offThread { try Self.peers(directory) }
        defer { simulator.stop(); webhook.stop() }

        let first = try await ServingGateway.started(arguments: arguments, environment: oldOnly, lifetime: 300)
        defer { _ = first.terminate() }
        let stored = try await Self.store(port: first.port, simulator: simulator, webhook: webhook)
        let before = try await sealed()
        #expect(before.count == 3 && before.allSatisfy { Self.keyID(of: $0) == oldID }, "sealed under the old key: \(before.map(Self.keyID))")
        #expect(first.terminate() == 0)

        let second = try await ServingGateway.started(arguments: arguments, environment: newWithOld, lifetime: 300)
        defer { _ = second.terminate() }
        try await Self.expectServed(port: second.port, stored, webhook: webhook, "with the old key as a previous one")
        // With keys from the environment, rotate-key without --env refuses, and changes nothing.
        let refused = try await GatewayBinary.run(["vault", "rotate-key", "--database", database], environment: newWithOld)
        #expect(refused.status != 0 && refused.stderr.contains("--env"), "\(refused.stdout) \(refused.stderr)")
        #expect(try await sealed() == before)

        let (resealed, during) = try await Self.whileReading(port: second.port, stored) {
            try GatewayBinary.runBlocking(["vault", "rotate-key", "--env", "--database", database], environment: newWithOld)
        }
        #expect(resealed.status == 0, "\(resealed.stdout) \(resealed.stderr)")
        #expect(during.allSatisfy { $0 == 200 }, "the stored account kept working during the re-sealing: \(during)")
        let after = try await sealed()
        #expect(after.count == 3 && after.allSatisfy { Self.keyID(of: $0) == newID }, "every value re-sealed under the new key: \(after.map(Self.keyID))")
        #expect(Set(after).isDisjoint(with: before))
        try await Self.expectServed(port: second.port, stored, webhook: webhook, "on the server that served throughout")

        #expect(second.terminate() == 0)
        let third = try await ServingGateway.started(arguments: arguments, environment: newOnly, lifetime: 300)
        defer { _ = third.terminate() }
        try await Self.expectServed(port: third.port, stored, webhook: webhook, "on a server with the new key alone")
    }

    // MARK: Helpers

    /// Every sealed value of the three kinds, one per row.
    static let sealedValuesQuery = """
        SELECT sealed_password FROM gradebook_accounts
        UNION ALL SELECT sealed_password FROM gradebook_device_accounts
        UNION ALL SELECT sealed_keys FROM push_devices WHERE sealed_keys IS NOT NULL
        """

    static func createAdmin(_ database: String) -> [String] {
        ["admin", "create-user", "--database", database, "--username", "root", "--role", "admin", "--password", adminPassword]
    }

    /// `serve` as in production, webhooks allowed to reach loopback over https.
    static func serve(_ database: String) -> [String] {
        ["--database", database, "--push-allowed-destinations", "127.0.0.0/8"]
    }

    /// The gradebook simulator (plain http, a development source) and the webhook's address: a
    /// link with nothing behind it, so every delivery fails after connecting, and is counted.
    static func peers(_ directory: URL) throws -> (SimulatorProcess, FaultyLink) {
        (try SimulatorProcess(plainIn: directory, prefix: "", lifetime: 300), try FaultyLink(speech: .tls, upstreamPort: nil, lifetime: .seconds(300)))
    }

    /// The key id a sealed value (`v1.<keyId>.<box>`) names.
    static func keyID(of sealed: String) -> String {
        let parts = sealed.split(separator: ".")
        return parts.count == 3 ? String(parts[1]) : "not a sealed value"
    }

    /// The ids in a key file (`<keyId> <base64 key>` a line, the current key first).
    static func keyIDs(inFile path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    /// Through the API of the server on `port`: the simulator as a development source, a student
    /// with a stored gradebook account and a webhook device, and a QuickHAC device's account.
    static func store(port: Int, simulator: SimulatorProcess, webhook: FaultyLink) async throws -> Stored {
        let admin = try #require(await Drill.token(port: port, "root", adminPassword), "the admin signs in")
        let source = await Drill.send(
            port: port, "PUT", "/v1/admin/gradebook/sources/\(sourceID)",
            body: #"{"name":"Simulator","baseUrl":"http://127.0.0.1:\#(simulator.port)/grades.json","development":true,"requestsPerMinute":100000,"maxConcurrency":8,"pollIntervalSeconds":86400}"#,
            token: admin
        )
        try #require(source?.status == 201, "the gradebook source: \(source?.body ?? "no answer")")
        let signUp = await Drill.send(port: port, "POST", "/v1/accounts", body: #"{"username":"vera","password":"\#(studentPassword)"}"#)
        try #require(signUp?.status == 201, "the student signs up: \(signUp?.body ?? "no answer")")
        let token = try #require(await Drill.token(port: port, "vera", studentPassword))
        let account = await Drill.send(
            port: port, "POST", "/v1/me/gradebook-accounts",
            body: #"{"sourceId":\#(sourceID),"username":"\#(NotificationDrill.gradebookUser)","password":"\#(NotificationDrill.gradebookPassword)"}"#, token: token
        )
        try #require(account?.status == 201, "the stored gradebook account: \(account?.body ?? "no answer")")
        let device = await Drill.send(
            port: port, "POST", "/v1/me/devices", body: #"{"channel":"webhook","url":"https://127.0.0.1:\#(webhook.port)/hook"}"#, token: token
        )
        let id = try #require((device?.object["device"] as? [String: Any])?["id"] as? Int, "the webhook device: \(device?.body ?? "no answer")")
        #expect((device?.object["webhookSecret"] as? String)?.hasPrefix("whsec_") == true)
        let uuid = "vault-rotation-\(UUID().uuidString)"
        #expect(try await form(port: port, "/ios/register", "uuid=\(uuid)") == 200)
        #expect(
            try await form(
                port: port, "/ios/account_add",
                "uuid=\(uuid)&user=\(NotificationDrill.gradebookUser)&pass=\(NotificationDrill.gradebookPassword)&district=\(sourceID)"
            ) == 200
        )
        return Stored(token: token, device: id)
    }

    /// The data opens on the server on `port`: the stored account signs in upstream (refreshed,
    /// nothing cached), and the webhook device's test notification is attempted: its delivery
    /// connects to the webhook's address and fails there (nothing answers TLS), where a device
    /// whose keys can't be opened is never sent to (its notifications wait, "the device's keys
    /// can't be opened on this server").
    static func expectServed(
        port: Int, _ stored: Stored, webhook: FaultyLink, _ when: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let sections = await Drill.send(port: port, "GET", "/v1/gradebook/\(sourceID)/sections?refresh=1", token: stored.token)
        #expect(sections?.status == 200, "\(when): the stored gradebook account works: \(sections?.body ?? "no answer")", sourceLocation: sourceLocation)
        @Sendable func notifications() async -> [[String: Any]] {
            (await Drill.send(port: port, "GET", "/v1/me/devices/\(stored.device)/notifications", token: stored.token))?.object["items"] as? [[String: Any]] ?? []
        }
        let earlier = Set(await notifications().compactMap { $0["id"] as? Int })
        let connections = webhook.acceptedConnections
        let test = await Drill.send(port: port, "POST", "/v1/me/devices/\(stored.device)/test", token: stored.token)
        #expect(test?.status == 202 && test?.object["queued"] as? Bool == true, "\(when): the test notification is queued: \(test?.body ?? "no answer")", sourceLocation: sourceLocation)
        let tried = await eventually(seconds: 60) {
            await notifications().contains { !earlier.contains($0["id"] as? Int ?? -1) && ($0["attempts"] as? Int ?? 0) >= 1 }
        }
        let latest = await notifications().first { !earlier.contains($0["id"] as? Int ?? -1) } ?? [:]
        let lastError = latest["lastError"] as? String ?? ""
        #expect(tried, "\(when): the test notification was attempted: \(latest)", sourceLocation: sourceLocation)
        #expect(!lastError.isEmpty && !lastError.contains("can't be opened"), "\(when): it failed at the webhook, not for want of its keys: \(lastError)", sourceLocation: sourceLocation)
        #expect(webhook.acceptedConnections > connections, "\(when): the delivery connected to the webhook's address", sourceLocation: sourceLocation)
    }

    /// Runs `command` (a blocking child process) while the stored account is read over and
    /// over through the server on `port`: its result, and every status the reads got.
    static func whileReading<T: Sendable>(port: Int, _ stored: Stored, _ command: @escaping @Sendable () throws -> T) async throws -> (T, [Int]) {
        let running = Atomic<Bool>(true)
        let reads = Task {
            var statuses: [Int] = []
            repeat {
                let reply = await Drill.send(port: port, "GET", "/v1/gradebook/\(sourceID)/sections?refresh=1", token: stored.token)
                statuses.append(reply?.status ?? -1)
            } while running.load(ordering: .acquiring)
            return statuses
        }
        let result = try await Drill.offThread(command)
        running.store(false, ordering: .releasing)
        return (result, await reads.value)
    }

    /// A form POST (the QuickHAC protocol); the status, or -1 without an answer.
    static func form(port: Int, _ path: String, _ body: String) async throws -> Int {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = "POST"
        request.timeoutInterval = 20
        request.httpBody = Data(body.utf8)
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        guard let (_, response) = try? await Drill.session.data(for: request), let http = response as? HTTPURLResponse else { return -1 }
        return http.statusCode
    }
}

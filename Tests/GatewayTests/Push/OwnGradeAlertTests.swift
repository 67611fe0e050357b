import Auth
import Contracts
import Foundation
import GatewayApp
import GatewayCore
import Gradebook
import GRDB
import HTTPTypes
import HummingbirdTesting
import Jobs
import NIOCore
import NIOFoundationEssentialsCompat
@testable import PostgresStores
import Push
@testable import SQLiteStores
import Storage
import TestSupport
import Testing
import SQLiteStorage

/// Grade alerts for every student, through v1 only (no `/ios/`): a stored gradebook account is
/// polled for its owner while they have an active device, and each new score becomes exactly
/// one notification naming the course; preferences per gradebook account switch it off.
@Suite("Grade alerts for stored gradebook accounts")
struct OwnGradeAlertTests {
    static func notifier(_ app: GatewayApplication) -> GradeNotifications {
        GradeNotifications(
            transactions: app.database, devices: SQLiteDeviceStore(), accounts: app.gradebookDeviceAccounts, ownedAccounts: app.gradebookAccounts,
            alerts: SQLiteGradeAlertStore(), preferences: SQLitePreferenceStore(), jobs: app.jobsRuntime.enqueuer, push: app.outbox, tick: 60
        )
    }

    static func request(
        _ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, token: String, body: String? = nil
    ) async throws -> (HTTPResponse.Status, [String: Any]) {
        var headers: HTTPFields = [.authorization: "Bearer \(token)"]
        if body != nil { headers[.contentType] = "application/json" }
        return try await client.execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }) { response in
            (response.status, (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any] ?? [:])
        }
    }

    static func postScore(_ client: some TestClientProtocol, assignment: Int, score: Double, display: String) async throws -> HTTPResponse.Status {
        try await client.execute(
            uri: "/sim/gradebook/_admin/scores", method: .post,
            headers: [.authorization: "Bearer sim-admin-token-for-tests", .contentType: "application/json"],
            body: ByteBuffer(string: #"{"term": 2152, "course": "458", "user": "jdoe", "assignment": \#(assignment), "score": \#(score), "displayScore": "\#(display)", "counts": true}"#)
        ) { $0.status }
    }

    @Test func aNewScoreInAStoredAccountNotifiesItsOwnerOnce() async throws {
        let (app, directory, _) = try GradeNotificationTests.demo()
        defer { try? FileManager.default.removeItem(at: directory) }
        for name in ["jane", "other"] {
            _ = try await app.accounts.createAccount(username: name, email: nil, password: "correct horse battery", role: .student)
        }
        let jane = try await app.accounts.issueToken(username: "jane", password: "correct horse battery", lifetimeMinutes: nil, clientAddress: nil).token
        let other = try await app.accounts.issueToken(username: "other", password: "correct horse battery", lifetimeMinutes: nil, clientAddress: nil).token
        let notifier = Self.notifier(app)
        // Poll windows of the past hour (the source polls every 300 s): each poll is due at once.
        let now = Int(app.clock.now().timeIntervalSince1970)
        let window = Date(timeIntervalSince1970: TimeInterval(now - now % 300 - 3600))
        try await app.makeApplication().test(.live) { client async throws in
            let stored = try await Self.request(
                client, .post, "/v1/me/gradebook-accounts", token: jane, body: #"{"sourceId": 1, "username": "jdoe", "password": "gradebook-test-1"}"#
            )
            #expect(stored.0 == .created)
            let accountID = try #require(stored.1["id"] as? Int)
            // No device yet: nothing to poll for.
            #expect(try await notifier.enqueueOwnAccountPolls(now: window) == 0)
            #expect(try await Self.request(client, .post, "/v1/me/devices", token: jane, body: #"{"channel": "log"}"#).0 == .created)

            // The first poll records the baseline and tells nobody.
            #expect(try await notifier.enqueueOwnAccountPolls(now: window.addingTimeInterval(300)) == 1)
            try await GradeNotificationTests.drain(app)
            #expect(try await GradeNotificationTests.notifications(app) == 0)

            // A new score: exactly one notification, naming the course, delivered.
            #expect(try await Self.postScore(client, assignment: 1, score: 9.5, display: "9.5/10") == .created)
            #expect(try await notifier.enqueueOwnAccountPolls(now: window.addingTimeInterval(600)) == 1)
            try await GradeNotificationTests.drain(app)
            let rows = try await app.outbox.recent(state: nil, deviceIDs: nil, limit: 10)
            let jobs = try await app.database.pool.read { db in try Row.fetchAll(db, sql: "SELECT kind, state, errors FROM jobs ORDER BY id") }
            #expect(rows.count == 1, "\(jobs)")
            #expect(rows.first?.state == .delivered)
            #expect(rows.first?.notification.category == "grade.new")
            let title = rows.first?.notification.title ?? ""
            #expect(title.hasPrefix("New grade in ") && title.contains("458") && title.hasSuffix(": 9.5/10"), "\(title)")
            #expect(rows.first?.notification.body.contains("jdoe") == true)

            // Polling again finds nothing new.
            #expect(try await notifier.enqueueOwnAccountPolls(now: window.addingTimeInterval(900)) == 1)
            try await GradeNotificationTests.drain(app)
            #expect(try await GradeNotificationTests.notifications(app) == 1)

            // Another student can't touch the preference of Jane's account.
            let foreign = try await Self.request(
                client, .put, "/v1/me/push-preferences/gradebook-accounts/\(accountID)", token: other, body: #"{"enabled": false}"#
            )
            #expect(foreign.0 == .notFound)
            // Off for this account: no more polls, and a change found meanwhile tells nobody.
            let categories = try await Self.request(
                client, .put, "/v1/me/push-preferences/gradebook-accounts/\(accountID)", token: jane,
                body: #"{"enabled": true, "categories": {"grade.new": false}}"#
            )
            #expect(categories.0 == .ok)
            #expect((categories.1["categories"] as? [String: Bool])?["grade.new"] == false)
            #expect(try await Self.postScore(client, assignment: 2, score: 7, display: "7/10") == .created)
            #expect(try await notifier.enqueueOwnAccountPolls(now: window.addingTimeInterval(1200)) == 1, "grade.changed is still on")
            try await GradeNotificationTests.drain(app)
            #expect(try await GradeNotificationTests.notifications(app) == 1, "new grades of this account are off")
            #expect(try await Self.request(
                client, .put, "/v1/me/push-preferences/gradebook-accounts/\(accountID)", token: jane, body: #"{"enabled": false}"#
            ).0 == .ok)
            #expect(try await notifier.enqueueOwnAccountPolls(now: window.addingTimeInterval(1500)) == 0)
            let listed = try await Self.request(client, .get, "/v1/me/push-preferences/gradebook-accounts", token: jane)
            let items = listed.1["items"] as? [[String: Any]]
            #expect(items?.count == 1)
            #expect(items?.first?["enabled"] as? Bool == false)
            #expect(try await Self.request(client, .get, "/v1/me/push-preferences/gradebook-accounts", token: other).1["items"] as? [Any] != nil)
        }
    }
}

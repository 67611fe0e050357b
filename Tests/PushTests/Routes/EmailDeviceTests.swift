import Auth
import AuthTestSupport
import Contracts
import Foundation
import GatewayCore
import GRDB
import HTTPTypes
import HummingbirdTesting
import Jobs
import Push
import Storage
import Testing
import TestSupport
import SQLiteStorage

/// Email devices end to end through the Push module's routes (``PushGateway``), with mail going
/// over SMTP (STARTTLS, AUTH) to a real server on 127.0.0.1: registration mails a code and a link, nothing else
/// reaches an unconfirmed address, only the owner confirms, the one-click link mutes.
@Suite("Email devices", .serialized)
struct EmailDeviceTests {
    static func gateway(_ server: SMTPStandIn) async throws -> PushGateway {
        try await PushGateway.make(delivery: .init(smtp: server, smtpPassword: "smtp-secret-1"))
    }

    static func deliverAll(_ gateway: PushGateway) async throws {
        try await gateway.deliverAll()
    }

    static func code(in message: SMTPStandIn.Message) throws -> String { try message.confirmationCode() }

    static func token(in link: String) throws -> String { try PushTestValues.linkToken(in: link) }

    @Test func registerConfirmAndNotifyOverSMTP() async throws {
        let server = try await SMTPStandIn.started(username: "gateway", password: "smtp-secret-1")
        defer { server.stop() }
        let gateway = try await Self.gateway(server)
        defer { gateway.cleanUp() }
        let ada = try await gateway.account("ada", role: .student)
        let bob = try await gateway.account("bob", role: .student)
        try await gateway.withRouter { client async throws in
            let created = try await client.json(.post, "/v1/me/devices", body: #"{"channel": "email", "email": "ada@example.edu", "name": "inbox"}"#, token: ada)
            #expect(created.status == .created)
            let device = try #require(created.object["device"] as? [String: Any])
            let id = try #require(device["id"] as? Int)
            #expect(device["channel"] as? String == "email")
            #expect(device["email"] as? String == "ada@example.edu")
            #expect(device["confirmed"] as? Bool == false)
            #expect(device["active"] as? Bool == false, "unconfirmed: inactive for delivery")

            try await Self.deliverAll(gateway)
            let confirmation = try #require(server.messages().first)
            #expect(server.messages().count == 1)
            #expect(confirmation.tls && confirmation.authenticated)
            #expect(confirmation.recipients == ["ada@example.edu"])
            #expect(confirmation.header("Subject") == "Confirm your address for Campus Gateway notifications")
            #expect(confirmation.text.contains("https://gateway.example.edu/v1/email/confirm?token="))
            let code = try Self.code(in: confirmation)

            // Unconfirmed: a test notification queues nothing, and nothing more is mailed.
            let test = try await client.json(.post, "/v1/me/devices/\(id)/test", token: ada)
            #expect(test.object["queued"] as? Bool == false)
            try await Self.deliverAll(gateway)
            #expect(server.messages().count == 1)

            // Another student can't confirm it, resend it, or even see it.
            #expect(try await client.json(.post, "/v1/me/devices/\(id)/confirm", body: #"{"code": "\#(code)"}"#, token: bob).status == .notFound)
            #expect(try await client.json(.post, "/v1/me/devices/\(id)/resend-confirmation", token: bob).status == .notFound)

            let wrong = try await client.json(.post, "/v1/me/devices/\(id)/confirm", body: #"{"code": "not-it"}"#, token: ada)
            #expect(wrong.status == .unprocessableContent)
            #expect(wrong.contentType == "application/problem+json")
            #expect(wrong.object["attemptsLeft"] as? Int == EmailConfirmation.maximumAttempts - 1)

            let confirmed = try await client.json(.post, "/v1/me/devices/\(id)/confirm", body: #"{"code": "\#(code)"}"#, token: ada)
            #expect(confirmed.status == .ok)
            #expect(confirmed.object["confirmed"] as? Bool == true)
            #expect(confirmed.object["active"] as? Bool == true)

            let again = try await client.json(.post, "/v1/me/devices/\(id)/test", token: ada)
            #expect(again.object["queued"] as? Bool == true)
            try await Self.deliverAll(gateway)
            let notification = try #require(server.messages().last)
            #expect(server.messages().count == 2)
            #expect(notification.header("Subject") == "Campus Gateway")
            #expect(notification.text.hasPrefix("Notifications reach this device.\n"))
            let unsubscribe = try #require(notification.header("List-Unsubscribe"))
            #expect(unsubscribe.hasPrefix("<https://gateway.example.edu/v1/email/unsubscribe?token="))
            #expect(notification.header("List-Unsubscribe-Post") == "List-Unsubscribe=One-Click")
            let delivered = try await client.json(.get, "/v1/me/devices/\(id)/notifications", token: ada)
            #expect((delivered.object["items"] as? [[String: Any]])?.first?["state"] as? String == "delivered")
        }
    }

    @Test func theOneClickLinkMutesTheCategoryAndRecordsTheSeatAlert() async throws {
        let server = try await SMTPStandIn.started(username: "gateway", password: "smtp-secret-1")
        defer { server.stop() }
        let gateway = try await Self.gateway(server)
        defer { gateway.cleanUp() }
        let ada = try await gateway.account("ada", role: .student)
        try await gateway.withRouter { client async throws in
            let created = try await client.json(.post, "/v1/me/devices", body: #"{"channel": "email", "email": "ada@example.edu"}"#, token: ada)
            let id = try #require((created.object["device"] as? [String: Any])?["id"] as? Int)
            try await Self.deliverAll(gateway)
            let confirmation = try #require(server.messages().first)
            let link = try #require(confirmation.text.split(separator: "\n").first { $0.hasPrefix("https://") })
            let token = try Self.token(in: String(link))
            // GET only shows a page (scanners change nothing); POST confirms.
            let page = try await client.json(.get, "/v1/email/confirm?token=\(token)")
            #expect(page.status == .ok)
            #expect(page.contentType?.hasPrefix("text/html") == true)
            #expect(page.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
            #expect((try await client.json(.get, "/v1/me/devices/\(id)", token: ada)).object["confirmed"] as? Bool == false)
            #expect(try await client.json(.post, "/v1/email/confirm?token=\(String(repeating: "A", count: 43))").status == .notFound)
            let posted = try await client.json(.post, "/v1/email/confirm?token=\(token)")
            #expect(posted.status == .ok)
            #expect(posted.object["confirmed"] as? Bool == true)
            #expect(try await client.json(.post, "/v1/email/confirm?token=\(token)").status == .notFound, "a link confirms once")

            let seat = OutgoingNotification(id: "seat-1", category: "seat.open", title: "A seat opened", body: "1 seat opened in class 7030.",
                                            data: ["classId": "7030", "seatAlertId": "42"], urgent: true)
            #expect(try await gateway.push.notify(deviceID: Int64(id), uniqueKey: "seat:1", seat))
            try await Self.deliverAll(gateway)
            let mail = try #require(server.messages().last)
            #expect(mail.header("Subject") == "A seat opened")
            let unsubscribe = try Self.token(in: try #require(mail.header("List-Unsubscribe")))
            let reply = try await client.oneClickUnsubscribe(token: unsubscribe)
            #expect(reply == .ok)
            let device = try await client.json(.get, "/v1/me/devices/\(id)", token: ada)
            #expect(device.object["mutedCategories"] as? [String] == ["seat.open"])
            #expect(try await gateway.push.notify(deviceID: Int64(id), uniqueKey: "seat:2", seat) == false, "muted for this address")
            let test = OutgoingNotification(id: "t", category: "test", title: "t", body: "b", urgent: true)
            #expect(try await gateway.push.notify(deviceID: Int64(id), uniqueKey: "test:1", test), "other categories still go")
            let recorded = try await gateway.database.pool.read { db in
                try Row.fetchOne(db, sql: "SELECT category, seat_alert_id, used_at FROM push_unsubscribes WHERE used_at IS NOT NULL")
            }
            #expect(recorded?["category"] as String? == "seat.open")
            #expect(recorded?["seat_alert_id"] as Int64? == 42)
            #expect(try await client.json(.post, "/v1/email/unsubscribe?token=\(String(repeating: "B", count: 43))").status == .notFound)
        }
    }

    @Test func addressesAndMailsAreLimitedAndInjectionRefused() async throws {
        let server = try await SMTPStandIn.started(username: "gateway", password: "smtp-secret-1")
        defer { server.stop() }
        let gateway = try await Self.gateway(server)
        defer { gateway.cleanUp() }
        let ada = try await gateway.account("ada", role: .student)
        try await gateway.withRouter { client async throws in
            for raw in [#"ada@example.edu\r\nBcc: victim@example.com"#, #"ada@example.edu\nX: y"#, "ada example.edu", "a@b@example.edu", ""] {
                let reply = try await client.json(.post, "/v1/me/devices", body: #"{"channel": "email", "email": "\#(raw)"}"#, token: ada)
                #expect(reply.status == .unprocessableContent, "\(raw)")
                #expect(reply.object["invalidFields"] as? [String] == ["email"], "\(raw)")
            }
            var ids: [Int] = []
            for n in 1...EmailConfirmation.maximumUnconfirmed {
                let created = try await client.json(.post, "/v1/me/devices", body: #"{"channel": "email", "email": "ada\#(n)@example.edu"}"#, token: ada)
                #expect(created.status == .created)
                ids.append(try #require((created.object["device"] as? [String: Any])?["id"] as? Int))
            }
            let fourth = try await client.json(.post, "/v1/me/devices", body: #"{"channel": "email", "email": "ada9@example.edu"}"#, token: ada)
            #expect(fourth.status == .conflict)
            #expect(fourth.object["type"] as? String == "/problems/unconfirmed-email-limit")
            let twice = try await client.json(.post, "/v1/me/devices", body: #"{"channel": "email", "email": "ada1@example.edu"}"#, token: ada)
            #expect(twice.status == .conflict)

            // Two resends, then the device's third mail of the day is the last.
            #expect(try await client.json(.post, "/v1/me/devices/\(ids[0])/resend-confirmation", token: ada).status == .accepted)
            #expect(try await client.json(.post, "/v1/me/devices/\(ids[0])/resend-confirmation", token: ada).status == .accepted)
            let limited = try await client.json(.post, "/v1/me/devices/\(ids[0])/resend-confirmation", token: ada)
            #expect(limited.status == .tooManyRequests)
            #expect(limited.contentType == "application/problem+json")
            let retryAfter = try #require(limited.headers[.retryAfter].flatMap { Int($0) })
            #expect(retryAfter > 0 && retryAfter <= 24 * 3600)
            try await Self.deliverAll(gateway)
            #expect(server.messages().count == EmailConfirmation.maximumUnconfirmed + 2)
            // A day later the limit has passed; only the latest mail's code works.
            gateway.clock.advance(by: 24 * 3600 + 1)
            // (The bearer token expired meanwhile.)
            let ada = try await gateway.auth.issueToken(username: "ada", password: "correct horse battery", lifetimeMinutes: nil, clientAddress: nil).token
            #expect(try await client.json(.post, "/v1/me/devices/\(ids[0])/resend-confirmation", token: ada).status == .accepted)
            try await Self.deliverAll(gateway)
            let codes = try server.messages().filter { $0.recipients == ["ada1@example.edu"] }.map(Self.code)
            #expect(codes.count == 4)
            for stale in Set(codes.dropLast()) where stale != codes.last {
                let reply = try await client.json(.post, "/v1/me/devices/\(ids[0])/confirm", body: #"{"code": "\#(stale)"}"#, token: ada)
                #expect(reply.status == .unprocessableContent)
            }
            let latest = try #require(codes.last)
            let confirmed = try await client.json(.post, "/v1/me/devices/\(ids[0])/confirm", body: #"{"code": "\#(latest)"}"#, token: ada)
            #expect(confirmed.status == .ok)
            // Confirmed: no more confirmation mails for it.
            #expect(try await client.json(.post, "/v1/me/devices/\(ids[0])/resend-confirmation", token: ada).status == .conflict)
        }
    }

    @Test func aServerRefusingTheMailIsRetriedOrGivenUpWithTheReason() async throws {
        let server = try await SMTPStandIn.started(username: "gateway", password: "smtp-secret-1")
        defer { server.stop() }
        let gateway = try await Self.gateway(server)
        defer { gateway.cleanUp() }
        let ada = try await gateway.account("ada", role: .student)
        try await gateway.withRouter { client async throws in
            try server.reply(with: "550 5.1.1 No such user here")
            let created = try await client.json(.post, "/v1/me/devices", body: #"{"channel": "email", "email": "nobody@example.edu"}"#, token: ada)
            let id = try #require((created.object["device"] as? [String: Any])?["id"] as? Int)
            try await Self.deliverAll(gateway)
            let device = try await client.json(.get, "/v1/me/devices/\(id)", token: ada)
            // The student reads that the server refused, not its reply (which may tell whether
            // a mailbox exists); the operator's log has the reply.
            #expect(device.object["lastError"] as? String == "confirmation mail: \(TransportEmailSender.refused)")
            #expect(!device.body.contains("550") && !device.body.contains("No such user"))
            let jobs = try await gateway.database.pool.read { db in
                try String.fetchAll(db, sql: "SELECT state FROM jobs WHERE kind = 'push.email-confirmation'")
            }
            #expect(jobs == ["completed"], "a 5xx is not retried")
            try server.reply(with: "451 4.3.0 Try again later")
            #expect(try await client.json(.post, "/v1/me/devices/\(id)/resend-confirmation", token: ada).status == .accepted)
            try await Self.deliverAll(gateway)
            let states = try await gateway.database.pool.read { db in
                try String.fetchAll(db, sql: "SELECT state FROM jobs WHERE kind = 'push.email-confirmation' ORDER BY id")
            }
            #expect(states == ["completed", "retryable"], "a 4xx is retried later")
            #expect(server.messages().isEmpty)
        }
    }
}

import Foundation
import GatewayCore
import HTTPClient
import Push
import Testing
import TestSupport

/// The SMTP transfer (libcurl) and the email sender against a real SMTP server on 127.0.0.1
/// (aiosmtpd, Fixtures/smtp_standin.py): STARTTLS required, AUTH, the message as received,
/// and what 4xx and 5xx replies become.
@Suite("SMTP over loopback", .serialized)
struct SMTPMailerTests {
    static let from = try! MailAddress(validating: "gateway@campus.example.edu")
    static let to = try! MailAddress(validating: "ada@example.edu")

    static func mailer(_ server: SMTPStandIn, password: String = "smtp-secret-1") throws -> SMTPMailer {
        let client = CurlHTTPClient(configuration: .init(threadCount: 1, connectTimeout: .seconds(5)))
        return SMTPMailer(configuration: try .init(
            url: server.url, username: "gateway", password: password, additionalCAFile: server.caFile, timeout: .seconds(20)
        ), client: client)
    }

    static func message(subject: String = "Ein Platz ist frei geworden", text: String = "Hallo\n.\nZeile zwei: grüße") -> MailMessage {
        MailMessage(
            from: from, fromName: "Campus Gateway", to: to, subject: subject, date: Date(timeIntervalSince1970: 1_751_364_000),
            messageID: "notification.n1@campus.example.edu",
            headers: [
                .init("List-Unsubscribe", "<https://gateway.example.edu/v1/email/unsubscribe?token=abc>"),
                .init("List-Unsubscribe-Post", "List-Unsubscribe=One-Click"),
            ],
            text: text
        )
    }

    @Test func aMailGoesOverSTARTTLSWithItsHeadersAndBody() async throws {
        let server = try await SMTPStandIn.started(username: "gateway", password: "smtp-secret-1")
        defer { server.stop() }
        let receipt = try await Self.mailer(server).send(Self.message())
        #expect(receipt.replyCode == 250)
        let received = try #require(server.messages().first)
        #expect(received.tls, "sent only after STARTTLS")
        #expect(received.authenticated)
        #expect(received.mailFrom == "gateway@campus.example.edu")
        #expect(received.recipients == ["ada@example.edu"])
        #expect(received.header("From") == "\"Campus Gateway\" <gateway@campus.example.edu>")
        #expect(received.header("To") == "<ada@example.edu>")
        #expect(received.header("Subject") == "Ein Platz ist frei geworden")
        #expect(received.header("Date") == "Tue, 01 Jul 2025 10:00:00 +0000")
        #expect(received.header("Message-ID") == "<notification.n1@campus.example.edu>")
        #expect(received.header("MIME-Version") == "1.0")
        #expect(received.header("Content-Type") == "text/plain; charset=utf-8")
        #expect(received.header("Content-Transfer-Encoding") == "quoted-printable")
        #expect(received.header("List-Unsubscribe") == "<https://gateway.example.edu/v1/email/unsubscribe?token=abc>")
        #expect(received.header("List-Unsubscribe-Post") == "List-Unsubscribe=One-Click")
        #expect(received.text == "Hallo\n.\nZeile zwei: grüße\n", "a line holding only a dot arrives intact")
    }

    @Test func withoutSTARTTLSNothingIsSentInClearText() async throws {
        let server = try await SMTPStandIn.started(starttls: false)
        defer { server.stop() }
        let client = CurlHTTPClient(configuration: .init(threadCount: 1, connectTimeout: .seconds(5)))
        let mailer = SMTPMailer(configuration: try .init(url: server.url, username: "gateway", password: "smtp-secret-1"), client: client)
        await #expect(throws: MailTransportError.startTLSUnavailable) { try await mailer.send(Self.message()) }
        #expect(server.messages().isEmpty, "no plaintext delivery")
        let outcome = await TransportEmailSender(transport: mailer).send(Self.message(), purpose: .notification(id: "n1", category: "test"))
        guard case .retry(_, let reason) = outcome else { Issue.record("\(outcome)"); return }
        #expect(reason.contains("STARTTLS"))
        #expect(server.messages().isEmpty)
    }

    /// The server's reply may tell whether a mailbox exists or name internal hosts: the reason a
    /// student reads (the device's `lastError`) says only that the server refused, for now or
    /// for good; the reply goes to the operator's log.
    @Test func transientRepliesAreRetriedAndPermanentOnesDiscardedWithTheKindOnly() async throws {
        let server = try await SMTPStandIn.started(username: "gateway", password: "smtp-secret-1")
        defer { server.stop() }
        let logs = CapturedLogs()
        let sender = TransportEmailSender(transport: try Self.mailer(server), logger: CapturedLogs.logger(logs))
        try server.reply(with: "451 4.3.0 Mailbox busy, try later")
        let busy = await sender.send(Self.message(), purpose: .notification(id: "n1", category: "test"))
        #expect(busy == .retry(after: nil, reason: TransportEmailSender.refusedForNow))
        try server.reply(with: "550 5.1.1 No such user here")
        let gone = await sender.send(Self.message(), purpose: .notification(id: "n1", category: "test"))
        #expect(gone == .discarded(reason: TransportEmailSender.refused))
        #expect(!TransportEmailSender.refused.contains("550") && !TransportEmailSender.refusedForNow.contains("451"))
        #expect(logs.all.contains { $0.contains("No such user here") && $0.contains("550") }, "the operator gets the reply: \(logs.all)")
        #expect(logs.all.contains { $0.contains("Mailbox busy") })
        #expect(server.messages().isEmpty)
        try server.reply(with: nil)
        #expect(await sender.send(Self.message(), purpose: .notification(id: "n1", category: "test")) == .delivered(status: 250))
        #expect(server.messages().count == 1)
    }

    @Test func anUntrustedCertificateOrAWrongPasswordSendsNothing() async throws {
        let server = try await SMTPStandIn.started(username: "gateway", password: "smtp-secret-1")
        defer { server.stop() }
        let client = CurlHTTPClient(configuration: .init(threadCount: 1, connectTimeout: .seconds(5)))
        let untrusting = SMTPMailer(configuration: try .init(url: server.url, username: "gateway", password: "smtp-secret-1"), client: client)
        await #expect(throws: MailTransportError.self) { try await untrusting.send(Self.message()) }
        await #expect(throws: MailTransportError.self) { try await Self.mailer(server, password: "wrong").send(Self.message()) }
        #expect(server.messages().isEmpty)
    }

    @Test func configurationsRefuseCredentialsInURLsAndNeverPrintSecrets() throws {
        #expect(throws: SMTPMailer.ConfigurationError.self) { try SMTPMailer.Configuration(url: URL(string: "http://mail.example.edu")!) }
        #expect(throws: SMTPMailer.ConfigurationError.self) { try SMTPMailer.Configuration(url: URL(string: "smtp://u:p@mail.example.edu")!) }
        let settings = try SMTPMailer.Configuration(url: URL(string: "smtp://mail.example.edu:587")!, username: "relay-user", password: "hunter2-secret")
        #expect(!"\(settings)".contains("hunter2") && !"\(settings)".contains("relay-user"))
        #expect("\(settings)".contains("smtp://mail.example.edu:587"))
    }
}


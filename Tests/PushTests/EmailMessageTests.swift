import Foundation
import HTTPClient
import Push
import Testing

/// The pure parts of email: which addresses are accepted (no header injection), how a mail is
/// written (RFC 5322 headers, RFC 2047 subjects, quoted-printable UTF-8, CRLF), the
/// confirmation limits and the unsubscribe target.
@Suite("Email messages and rules")
struct EmailMessageTests {
    static let from = try! MailAddress(validating: "gateway@campus.example.edu")
    static let to = try! MailAddress(validating: "Ada.Lovelace+seats@Example.EDU")

    @Test func addressesThatCouldInjectAreRefused() throws {
        #expect(Self.to.value == "Ada.Lovelace+seats@example.edu", "the domain is kept in lower case")
        let refused = [
            "ada@example.edu\r\nBcc: victim@example.com", "ada@example.edu\n", "ada@example.edu\r", "ada\u{0}@example.edu",
            "ada @example.edu", "ada@exa mple.edu", "ada@@example.edu", "ada@b@example.edu", "adaexample.edu", "@example.edu",
            "ada@", "ada@localhost", "ada@-example.edu", "ada@example..edu", ".ada@example.edu", "a..da@example.edu",
            "<ada@example.edu>", "ada@example.edu>", "\"ada\"@example.edu", "adä@example.edu", "ada@exämple.edu",
            String(repeating: "a", count: 65) + "@example.edu", "ada@" + String(repeating: "a", count: 250) + ".edu",
            "ada,bob@example.edu", "ada@example.edu;bob@example.edu", "ada\t@example.edu",
        ]
        for raw in refused {
            #expect(throws: MailAddress.Invalid.self, "\(raw.debugDescription)") { try MailAddress(validating: raw) }
        }
    }

    @Test func aMailHasItsHeadersAndACRLFQuotedPrintableBody() throws {
        let message = MailMessage(
            from: Self.from, fromName: "Campus Gateway", to: Self.to, subject: "A seat opened", date: Date(timeIntervalSince1970: 1_751_364_000),
            messageID: "n7@campus.example.edu", headers: [MailMessage.Header("List-Unsubscribe", "<https://gw.example.edu/u?token=x>")],
            text: "Café crème = 3 €\n.\n.hidden\nline with trailing space \n" + String(repeating: "long ", count: 30)
        )
        let raw = String(decoding: try message.rendered(), as: UTF8.self)
        #expect(!raw.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "CRLF only")
        #expect(!raw.replacingOccurrences(of: "\r\n", with: "").contains("\r"))
        #expect(raw.utf8.allSatisfy { $0 < 0x80 }, "7-bit on the wire")
        let head = try #require(raw.components(separatedBy: "\r\n\r\n").first)
        let lines = head.components(separatedBy: "\r\n")
        #expect(lines.contains("Date: Tue, 01 Jul 2025 10:00:00 +0000"))
        #expect(lines.contains("From: \"Campus Gateway\" <gateway@campus.example.edu>"))
        #expect(lines.contains("To: <Ada.Lovelace+seats@example.edu>"))
        #expect(lines.contains("Subject: A seat opened"))
        #expect(lines.contains("Message-ID: <n7@campus.example.edu>"))
        #expect(lines.contains("MIME-Version: 1.0"))
        #expect(lines.contains("Content-Type: text/plain; charset=utf-8"))
        #expect(lines.contains("Content-Transfer-Encoding: quoted-printable"))
        #expect(lines.contains("List-Unsubscribe: <https://gw.example.edu/u?token=x>"))
        let body = String(raw[raw.range(of: "\r\n\r\n")!.upperBound...])
        #expect(body.hasPrefix("Caf=C3=A9 cr=C3=A8me =3D 3 =E2=82=AC\r\n=2E\r\n=2Ehidden\r\nline with trailing space=20\r\n"))
        #expect(body.components(separatedBy: "\r\n").allSatisfy { $0.utf8.count <= 76 }, "quoted-printable lines are at most 76")
        #expect(body.hasSuffix("\r\n"))
    }

    @Test func nonASCIISubjectsAreEncodedWords() throws {
        let subject = "Un siège s’est libéré en MATH 141 — réservez-le vite, avant qu’il ne reparte ✓"
        let message = MailMessage(from: Self.from, to: Self.to, subject: subject, date: Date(), messageID: "x@y.z", text: "ok")
        let raw = String(decoding: try message.rendered(), as: UTF8.self)
        let head = try #require(raw.components(separatedBy: "\r\n\r\n").first)
        let unfolded = head.replacingOccurrences(of: "\r\n ", with: " ")
        let line = try #require(unfolded.components(separatedBy: "\r\n").first { $0.hasPrefix("Subject: ") })
        let words = line.dropFirst("Subject: ".count).split(separator: " ")
        #expect(words.count > 1)
        var decoded = Data()
        for word in words {
            #expect(word.hasPrefix("=?UTF-8?B?") && word.hasSuffix("?="))
            #expect(word.count <= 75, "an encoded-word is at most 75 characters")
            decoded.append(try #require(Data(base64Encoded: String(word.dropFirst(10).dropLast(2)))))
            #expect(String(data: try #require(Data(base64Encoded: String(word.dropFirst(10).dropLast(2)))), encoding: .utf8) != nil,
                    "each word holds whole characters")
        }
        #expect(String(decoding: decoded, as: UTF8.self) == subject)
    }

    @Test func headerInjectionThroughTheMessageIsRefused() throws {
        func render(subject: String = "Hi", fromName: String? = nil, id: String = "a@b.c", headers: [MailMessage.Header] = []) throws {
            _ = try MailMessage(from: Self.from, fromName: fromName, to: Self.to, subject: subject, date: Date(), messageID: id, headers: headers, text: "x")
                .rendered()
        }
        #expect(throws: MailMessageError.invalidHeader("Subject")) { try render(subject: "Hi\r\nBcc: victim@example.com") }
        #expect(throws: MailMessageError.invalidHeader("Subject")) { try render(subject: "Hi\nBcc: victim@example.com") }
        #expect(throws: MailMessageError.invalidHeader("Subject")) { try render(subject: "Hi\u{85}there") }
        #expect(throws: MailMessageError.invalidHeader("From")) { try render(fromName: "Gate\r\nBcc: x@y.z") }
        #expect(throws: MailMessageError.invalidHeader("Message-ID")) { try render(id: "a@b.c>\r\nBcc: <x@y.z") }
        #expect(throws: MailMessageError.invalidHeader("List-Unsubscribe")) { try render(headers: [.init("List-Unsubscribe", "<x>\r\nBcc: y@z.w")]) }
        #expect(throws: MailMessageError.invalidHeader("Bcc")) { try render(headers: [.init("Bcc", "x@y.z")]) }
        #expect(throws: MailMessageError.self) { try render(headers: [.init("X-A\r\nBcc", "x@y.z")]) }
        try render(subject: "Plain and fine")
    }

    @Test func confirmationMailsAreLimitedPerDeviceAndPerAccount() {
        let now = Date(timeIntervalSince1970: 1_000_000)
        let hour: TimeInterval = 3600
        #expect(EmailConfirmation.mailAllowed(deviceMails: [], accountMails: [], now: now) == .allowed)
        let three = [now - 10 * hour, now - 2 * hour, now - 1 * hour]
        #expect(EmailConfirmation.mailAllowed(deviceMails: three, accountMails: three, now: now) == .retryAfter(seconds: Int(14 * hour)))
        #expect(EmailConfirmation.mailAllowed(deviceMails: three.map { $0 - 20 * hour }, accountMails: [], now: now) == .allowed, "older than a day")
        let ten = (1...10).map { now - Double($0) * hour }
        #expect(EmailConfirmation.mailAllowed(deviceMails: [], accountMails: ten, now: now) == .retryAfter(seconds: Int(14 * hour)))
        let code = EmailConfirmation.newCode()
        #expect(code.count == 6 && code.allSatisfy(\.isNumber))
        let token = EmailConfirmation.newToken()
        #expect(EmailConfirmation.isTokenShaped(token))
        #expect(!EmailConfirmation.isTokenShaped(token + "x") && !EmailConfirmation.isTokenShaped(String(token.dropLast()) + "!"))
        #expect(EmailConfirmation.codeHash(code, deviceID: 1) != EmailConfirmation.codeHash(code, deviceID: 2), "a code is bound to its device")
    }

    @Test func theUnsubscribeTargetCarriesTheSeatAlert() {
        let seat = OutgoingNotification(id: "n1", category: "seat.open", title: "t", body: "b", data: ["classId": "7", "seatAlertId": "42"])
        let target = UnsubscribeTarget(deviceID: 9, notification: seat)
        #expect(target == UnsubscribeTarget(deviceID: 9, category: "seat.open", seatAlertID: 42))
        #expect(target.mutedCategory == "seat.open")
        let test = OutgoingNotification(id: "n2", category: "test", title: "t", body: "b")
        #expect(UnsubscribeTarget(deviceID: 9, notification: test).seatAlertID == nil)
        #expect(UnsubscribeTarget(deviceID: 9, notification: test).mutedCategory == UnsubscribeTarget.everything, "an always-on category: stop everything")
    }
}

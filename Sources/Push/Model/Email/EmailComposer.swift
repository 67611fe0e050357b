public import Foundation
public import HTTPClient

/// Writes the gateway's mails, pure: the confirmation mail (code and link) and a notification
/// mail with its one-click unsubscribe link (RFC 8058 `List-Unsubscribe` and
/// `List-Unsubscribe-Post`). Links are the public base URL plus a path and the random token:
/// nothing else secret goes in a URL.
public struct EmailComposer: Sendable {
    public var from: MailAddress
    public var fromName: String
    /// Where the gateway is reached from outside (`GATEWAY_PUBLIC_URL`), without a trailing slash.
    public var publicURL: String

    public init(from: MailAddress, fromName: String = "Campus Gateway", publicURL: URL) {
        self.from = from
        self.fromName = fromName
        var base = publicURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        self.publicURL = base
    }

    /// `GET` shows a page with a button; `POST` confirms.
    public func confirmationLink(token: String) -> String { "\(publicURL)/v1/email/confirm?token=\(token)" }
    /// `POST` (one click) unsubscribes; `GET` shows a page with a button.
    public func unsubscribeLink(token: String) -> String { "\(publicURL)/v1/email/unsubscribe?token=\(token)" }

    public func confirmation(to: MailAddress, code: String, token: String, date: Date) -> MailMessage {
        let hours = Int(EmailConfirmation.lifetime / 3600)
        let text = """
            Someone, hopefully you, asked Campus Gateway to send notifications (open seats, grades, \
            waitlist offers) to this address.

            Your confirmation code: \(code)

            Or confirm with this link:
            \(confirmationLink(token: token))

            The code and the link work for \(hours) hours. If you did not ask for this, ignore this mail: \
            nothing else is sent to this address unless it is confirmed.
            """
        return MailMessage(
            from: from, fromName: fromName, to: to, subject: "Confirm your address for Campus Gateway notifications", date: date,
            messageID: "confirm.\(UUID().uuidString.lowercased())@\(from.domain)", headers: [MailMessage.Header("Auto-Submitted", "auto-generated")],
            text: text
        )
    }

    /// A notification mail. The Message-ID is the notification's, so a retry is recognisably
    /// the same mail.
    public func notification(_ notification: OutgoingNotification, to: MailAddress, unsubscribeToken: String, date: Date) -> MailMessage {
        let link = unsubscribeLink(token: unsubscribeToken)
        let text = """
            \(notification.body)

            --\u{20}
            Campus Gateway sends these (\(notification.category)) to this address because you asked for them.
            Stop them: \(link)
            """
        let safeID = String(notification.id.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") }
            .prefix(64).map(Character.init))
        return MailMessage(
            from: from, fromName: fromName, to: to, subject: notification.title, date: date,
            messageID: "notification.\(safeID.isEmpty ? "x" : safeID)@\(from.domain)",
            headers: [
                MailMessage.Header("List-Unsubscribe", "<\(link)>"),
                MailMessage.Header("List-Unsubscribe-Post", "List-Unsubscribe=One-Click"),
                MailMessage.Header("Auto-Submitted", "auto-generated"),
            ],
            text: text
        )
    }
}

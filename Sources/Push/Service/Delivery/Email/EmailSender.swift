public import HTTPClient
public import Logging

/// Why a mail goes out, for a sender that only logs (the demo): it may show a confirmation's
/// code and link, never a notification's text.
public enum MailPurpose: Sendable, Equatable {
    case confirmation(deviceID: Int64, code: String, link: String)
    case notification(id: String, category: String)
}

/// Sends one rendered mail and says what became of it, as a ``DeliveryOutcome``.
public protocol EmailSender: Sendable {
    func send(_ message: MailMessage, purpose: MailPurpose) async -> DeliveryOutcome
}

/// Sends through a ``MailTransport`` (the SMTP server): a 4xx reply is retried later, a 5xx
/// is discarded (the server's reply goes to the log, the student reads only that it refused); no STARTTLS and transport failures are retried
/// (nothing was sent); a message that can't be rendered safely is discarded. A transport
/// failure's reason (which becomes the device's `lastError`, read by the student) names its
/// kind only; libcurl's message, which may name the server's address, goes to the log.
public struct TransportEmailSender: EmailSender {
    let transport: any MailTransport
    let logger: Logger

    /// What a student reads when the mail server refused a mail for now (4xx), or for good.
    public static let refusedForNow = "the mail server refused the message for now; it will be tried again"
    public static let refused = "the mail server refused the message"

    public init(transport: any MailTransport, logger: Logger = Logger(label: "campus-gateway.push")) {
        self.transport = transport
        var logger = logger
        logger[metadataKey: "channel"] = "email"
        self.logger = logger
    }

    public func send(_ message: MailMessage, purpose: MailPurpose) async -> DeliveryOutcome {
        do {
            return .delivered(status: try await transport.send(message).replyCode)
        } catch let error as MailTransportError {
            switch error {
            case .rejected(let code, let reply):
                // The reply may say whether a mailbox exists, or name internal hosts: it goes to
                // the operator's log; the student reads the kind of failure only.
                logger.warning("mail refused by the SMTP server", metadata: ["smtp_code": "\(code)", "smtp_reply": "\(reply)"])
                if (400..<500).contains(code) { return .retry(after: nil, reason: Self.refusedForNow) }
                return .discarded(reason: Self.refused)
            case .invalidMessage: return .discarded(reason: error.description)
            case .startTLSUnavailable: return .retry(after: nil, reason: error.description)
            case .transport(let failure):
                logger.warning("mail server unreachable", metadata: ["error": "\(failure)"])
                guard case .retry(_, let kind) = HTTPDeliveryMapping.outcome(for: failure) else {
                    return .retry(after: nil, reason: "the mail server could not be reached")
                }
                return .retry(after: nil, reason: "the mail server could not be reached: \(kind)")
            }
        } catch {
            return .retry(after: nil, reason: error is CancellationError ? "cancelled before the server answered" : "sending failed")
        }
    }
}

/// The demo's mailer when no SMTP server is configured: logs that a mail was sent (to which
/// domain, why) and reports it delivered. A confirmation's code and link are logged so the
/// demo can be confirmed; never a notification's text, and it has no credentials to log.
public struct LogEmailSender: EmailSender {
    let logger: Logger

    public init(logger: Logger) {
        var logger = logger
        logger[metadataKey: "channel"] = "email"
        self.logger = logger
    }

    public func send(_ message: MailMessage, purpose: MailPurpose) async -> DeliveryOutcome {
        switch purpose {
        case .confirmation(let deviceID, let code, let link):
            logger.notice("mail (log mailer, not sent): confirmation", metadata: [
                "device": "\(deviceID)", "domain": "\(message.to.domain)", "code": "\(code)", "link": "\(link)",
            ])
        case .notification(let id, let category):
            logger.info("mail (log mailer, not sent): notification", metadata: [
                "notification": "\(id)", "category": "\(category)", "domain": "\(message.to.domain)",
            ])
        }
        return .delivered(status: 250)
    }
}

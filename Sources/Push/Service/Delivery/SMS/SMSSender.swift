public import Foundation
public import Logging

/// One text to send: to a number, the body (GSM-safe, at most two segments: ``SMSText``).
public struct SMSMessage: Sendable, Equatable {
    public var to: PhoneNumber
    public var body: String

    public init(to: PhoneNumber, body: String) {
        self.to = to
        self.body = body
    }
}

/// Why a text goes out, for a sender that only logs (the demo): it may show a confirmation's
/// code, never a notification's text.
public enum SMSPurpose: Sendable, Equatable {
    case confirmation(deviceID: Int64, code: String)
    case notification(id: String, category: String)
}

/// Sends one text and says what became of it, as a ``DeliveryOutcome``. A number that opted out
/// at the provider answers ``DeliveryOutcome/deactivate(reason:)`` with ``optedOutReason``.
public protocol SMSSender: Sendable {
    func send(_ message: SMSMessage, purpose: SMSPurpose) async -> DeliveryOutcome
}

public enum SMSOutcome {
    /// The reason a sender gives when the provider says the number texted STOP (Twilio 21610).
    public static let optedOutReason = "the number replied STOP to this sender (Twilio 21610); texting START resumes texts"
}

/// The demo's sender when no SMS provider is configured: logs that a text was sent (to which
/// masked number, why) and reports it delivered. A confirmation's code is logged so the demo
/// can be confirmed; never a notification's text, and it has no credentials to log.
public struct LogSMSSender: SMSSender {
    let logger: Logger

    public init(logger: Logger) {
        var logger = logger
        logger[metadataKey: "channel"] = "sms"
        self.logger = logger
    }

    public func send(_ message: SMSMessage, purpose: SMSPurpose) async -> DeliveryOutcome {
        switch purpose {
        case .confirmation(let deviceID, let code):
            logger.notice("text (log sender, not sent): confirmation", metadata: ["device": "\(deviceID)", "to": "\(message.to.masked)", "code": "\(code)"])
        case .notification(let id, let category):
            logger.info("text (log sender, not sent): notification", metadata: [
                "notification": "\(id)", "category": "\(category)", "to": "\(message.to.masked)", "segments": "\(SMSText.segments(message.body))",
            ])
        }
        return .delivered(status: 201)
    }
}

/// No SMS provider and not a demo: texts are discarded with the reason kept on the outbox row
/// (or, for a confirmation, on the device).
public struct UnconfiguredSMSSender: SMSSender {
    public init() {}

    public func send(_ message: SMSMessage, purpose: SMSPurpose) async -> DeliveryOutcome {
        .discarded(reason: "no SMS provider is configured (GATEWAY_SMS_ACCOUNT_SID)")
    }
}

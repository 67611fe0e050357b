/// Sends mail. ``SMTPMailer`` is the libcurl one; feature modules depend on this protocol so
/// tests and demos can substitute their own.
public protocol MailTransport: Sendable {
    /// Sends `message` to its `to` address, with its `from` as the envelope sender.
    ///
    /// - Throws: ``MailTransportError`` (the server refused, no STARTTLS, transport failure,
    ///   an unrenderable message), or `CancellationError`.
    func send(_ message: MailMessage) async throws -> SMTPReceipt
}

/// The server accepted the message.
public struct SMTPReceipt: Sendable, Equatable {
    /// The server's final reply code (250).
    public var replyCode: Int
    public init(replyCode: Int) { self.replyCode = replyCode }
}

/// Why a mail was not sent. Descriptions carry reply codes and the server's short reply text
/// (printable ASCII, at most 120 characters), never credentials or the message.
public enum MailTransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered a step (AUTH, MAIL, RCPT, DATA or the end of data) with a 4xx or 5xx.
    case rejected(code: Int, reply: String)
    /// The server does not offer STARTTLS (or refused it) on an `smtp://` URL: nothing was
    /// sent, credentials and message included.
    case startTLSUnavailable
    /// The message could not be rendered (a header that could inject another).
    case invalidMessage(MailMessageError)
    /// Connection, TLS or timeout failure before the server answered.
    case transport(HTTPClientError)

    /// The SMTP reply code, when the server gave one.
    public var replyCode: Int? {
        if case .rejected(let code, _) = self { return code }
        return nil
    }

    /// A 5xx reply: sending the same message again will fail the same way.
    public var isPermanent: Bool {
        switch self {
        case .rejected(let code, _): (500..<600).contains(code)
        case .invalidMessage: true
        case .startTLSUnavailable, .transport: false
        }
    }

    public var description: String {
        switch self {
        case .rejected(let code, let reply): reply.isEmpty ? "the SMTP server answered \(code)" : "the SMTP server answered \(code): \(reply)"
        case .startTLSUnavailable: "the SMTP server offers no STARTTLS; nothing was sent in clear text"
        case .invalidMessage(let error): "the message was refused before sending: \(error)"
        case .transport(let error): "\(error)"
        }
    }
}

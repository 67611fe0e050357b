public import Foundation

/// One plain-text mail to one recipient, rendered as RFC 5322 with MIME (RFC 2045):
/// `Date`, `From`, `To`, `Subject` (RFC 2047 encoded-words when not ASCII), `Message-ID`,
/// `MIME-Version: 1.0`, `Content-Type: text/plain; charset=utf-8`,
/// `Content-Transfer-Encoding: quoted-printable`, then the extra headers; CRLF line endings.
///
/// Rendering refuses (``MailMessageError``) anything that could add a header or end one
/// early: CR, LF or another control character in the subject, the display name, the message id
/// or an extra header; an extra header that is not printable ASCII or that names one of the
/// headers set here (or `Bcc`, `Cc`, `Sender`, `Reply-To`). Addresses are ``MailAddress``es,
/// valid by construction.
public struct MailMessage: Sendable, Equatable {
    /// One extra header, such as `List-Unsubscribe`.
    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: String
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    public var from: MailAddress
    /// Shown as the sender's name (`"Campus Gateway" <noreply@...>`).
    public var fromName: String?
    public var to: MailAddress
    public var subject: String
    public var date: Date
    /// `local@domain`, without the angle brackets.
    public var messageID: String
    public var headers: [Header]
    /// The text; any line break becomes CRLF.
    public var text: String

    public init(
        from: MailAddress, fromName: String? = nil, to: MailAddress, subject: String, date: Date, messageID: String, headers: [Header] = [],
        text: String
    ) {
        self.from = from
        self.fromName = fromName
        self.to = to
        self.subject = subject
        self.date = date
        self.messageID = messageID
        self.headers = headers
        self.text = text
    }

    /// Headers set by ``rendered()`` and those an extra header may not name.
    static let reservedHeaders: Set<String> = [
        "date", "from", "to", "subject", "message-id", "mime-version", "content-type", "content-transfer-encoding", "bcc", "cc", "sender",
        "reply-to", "received", "return-path",
    ]

    /// The message as sent: header lines and the quoted-printable body, CRLF throughout.
    public func rendered() throws(MailMessageError) -> Data {
        guard !subject.unicodeScalars.contains(where: Self.isControl) else { throw .invalidHeader("Subject") }
        guard subject.utf8.count <= 500 else { throw .invalidHeader("Subject") }
        if let fromName, fromName.unicodeScalars.contains(where: Self.isControl) || fromName.utf8.count > 100 { throw .invalidHeader("From") }
        let idParts = messageID.split(separator: "@", omittingEmptySubsequences: false)
        guard idParts.count == 2, !idParts[0].isEmpty, !idParts[1].isEmpty, messageID.utf8.count <= 200,
              messageID.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "<") && $0 != UInt8(ascii: ">") }) else {
            throw .invalidHeader("Message-ID")
        }
        var lines = [
            "Date: \(MailEncoding.date(date))",
            "From: " + (fromName.map { MailEncoding.displayName($0) + " " } ?? "") + "<\(from.value)>",
            "To: <\(to.value)>",
            "Subject: " + MailEncoding.unstructured(subject, nameLength: 9),
            "Message-ID: <\(messageID)>",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: quoted-printable",
        ]
        for header in headers {
            guard PreparedTransfer.isToken(header.name), !Self.reservedHeaders.contains(header.name.lowercased()) else {
                throw .invalidHeader(PreparedTransfer.isToken(header.name) ? header.name : "(unprintable name)")
            }
            guard MailEncoding.isPlainHeaderText(header.value), header.value.utf8.count <= 900 else { throw .invalidHeader(header.name) }
            lines.append("\(header.name): \(header.value)")
        }
        let head = lines.joined(separator: MailEncoding.crlf)
        return Data((head + MailEncoding.crlf + MailEncoding.crlf + MailEncoding.quotedPrintable(text)).utf8)
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
    }
}

/// A message that can't be rendered safely; names the header, never quotes its value.
public enum MailMessageError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidHeader(String)

    public var description: String {
        switch self {
        case .invalidHeader(let name): "the \(name) header holds characters or a length a mail header can't have"
        }
    }
}

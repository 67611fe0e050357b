import Telemetry
import Tracing
public import Foundation

/// Sends mail over SMTP with libcurl, on the transfer threads of a ``CurlHTTPClient`` (mails
/// and HTTP requests share that bounded pool; no thread of its own).
///
/// Transport security is not optional: an `smtp://` URL always upgrades with STARTTLS
/// (`CURLOPT_USE_SSL = CURLUSESSL_ALL`), and a server that doesn't offer it gets neither the
/// credentials nor the message (``MailTransportError/startTLSUnavailable``); `smtps://` is TLS
/// from the first byte. Certificates and host names are always verified (an extra CA file adds
/// trust, it never turns verification off). libcurl dot-stuffs the body; the message is CRLF
/// throughout (``MailMessage``).
///
/// The server is the operator's, not a user's, so the client's destination allow list doesn't
/// apply (a relay on localhost or the private network is usual). Nothing is logged here;
/// ``Configuration``'s description hides the password and the user name.
public final class SMTPMailer: MailTransport {
    /// Where and how to send.
    public struct Configuration: Sendable, CustomStringConvertible {
        /// `smtp://host[:port]` (STARTTLS, default port 25; 587 is usual) or
        /// `smtps://host[:port]` (implicit TLS, 465). A path names the EHLO domain.
        public var url: URL
        public var username: String?
        public var password: String?
        /// Extra trust anchors (PEM), e.g. a test server's self-signed certificate.
        public var additionalCAFile: String?
        public var connectTimeout: Duration
        /// The whole exchange, connection to QUIT.
        public var timeout: Duration

        /// - Throws: ``ConfigurationError`` for a URL that is not `smtp`/`smtps` with a host, or
        ///   that carries credentials (they go in `username`/`password`, never in a URL).
        public init(
            url: URL, username: String? = nil, password: String? = nil, additionalCAFile: String? = nil, connectTimeout: Duration = .seconds(10),
            timeout: Duration = .seconds(60)
        ) throws(ConfigurationError) {
            guard let scheme = url.scheme?.lowercased(), scheme == "smtp" || scheme == "smtps" else {
                throw ConfigurationError(reason: "the SMTP URL must start with smtp:// (STARTTLS) or smtps:// (TLS)")
            }
            guard let host = url.host, !host.isEmpty else { throw ConfigurationError(reason: "the SMTP URL has no host") }
            guard url.user == nil, url.password == nil, url.query == nil else {
                throw ConfigurationError(reason: "the SMTP URL must carry no credentials or query; set the user name and password on their own")
            }
            guard username == nil || password != nil else { throw ConfigurationError(reason: "an SMTP user name needs a password") }
            self.url = url
            self.username = username
            self.password = password
            self.additionalCAFile = additionalCAFile
            self.connectTimeout = connectTimeout
            self.timeout = timeout
        }

        /// Scheme, host and port, whether a login is set and the CA file: never the secrets.
        public var description: String {
            let port = url.port.map { ":\($0)" } ?? ""
            return "\(url.scheme ?? "?")://\(url.host ?? "?")\(port) (login \(username == nil ? "none" : "set"), CA file \(additionalCAFile ?? "system"))"
        }
    }

    /// A configuration that can't be used; the reason never quotes secrets.
    public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    public let configuration: Configuration
    let client: CurlHTTPClient

    /// - Parameter client: whose transfer threads carry the mails.
    public init(configuration: Configuration, client: CurlHTTPClient) {
        self.configuration = configuration
        self.client = client
    }

    public func send(_ message: MailMessage) async throws -> SMTPReceipt {
        guard GatewayTracing.isEnabled else { return try await deliver(message) }
        // A client span naming the mail server's host; never addresses, subjects or bodies.
        return try await GatewayTracing.span("SMTP send", ofKind: .client) { span in
            span?.attributes["server.address"] = configuration.url.host ?? ""
            span?.attributes["network.protocol.name"] = "smtp"
            return try await deliver(message)
        }
    }

    private func deliver(_ message: MailMessage) async throws -> SMTPReceipt {
        let data: Data
        do {
            data = try message.rendered()
        } catch {
            throw MailTransportError.invalidMessage(error)
        }
        let transfer = SMTPTransfer(
            url: configuration.url.absoluteString, from: message.from.value, recipient: message.to.value, message: data,
            username: configuration.username, password: configuration.password, additionalCAFile: configuration.additionalCAFile,
            connectTimeoutMilliseconds: PreparedTransfer.milliseconds(configuration.connectTimeout),
            timeoutMilliseconds: PreparedTransfer.milliseconds(configuration.timeout)
        )
        try Task.checkCancellation()
        return try await client.runTransfer { easy, ticket in easy.performSMTP(transfer, ticket: ticket) }
    }
}

/// Everything a transfer thread needs to send one mail.
struct SMTPTransfer: Sendable {
    var url: String
    var from: String
    var recipient: String
    var message: Data
    var username: String?
    var password: String?
    var additionalCAFile: String?
    var connectTimeoutMilliseconds: Int
    var timeoutMilliseconds: Int
}

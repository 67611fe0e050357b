public import Foundation

/// An HTTP method such as `GET` or `POST`.
///
/// Any token is accepted (`HTTPMethod("PROPFIND")`); the common ones are predefined.
public struct HTTPMethod: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }

    public static let get: HTTPMethod = "GET"
    public static let head: HTTPMethod = "HEAD"
    public static let post: HTTPMethod = "POST"
    public static let put: HTTPMethod = "PUT"
    public static let patch: HTTPMethod = "PATCH"
    public static let delete: HTTPMethod = "DELETE"
    public static let options: HTTPMethod = "OPTIONS"
}

/// Username and password sent with HTTP Basic authentication.
///
/// `description` never reveals the password, so credentials are safe to interpolate into logs
/// by accident. They are sent only to the request's own origin (scheme, host and port), never
/// to a redirect target on another origin.
public struct BasicCredentials: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    public var username: String
    public var password: String

    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    public var description: String { "BasicCredentials(username: \(username), password: <redacted>)" }
    public var debugDescription: String { description }
}

/// One outbound HTTP request.
///
/// `description` shows only the method, scheme, host, port and path: never the query string,
/// headers, body or credentials, which may carry secrets.
public struct OutboundRequest: Sendable, CustomStringConvertible {
    /// The HTTP method. Defaults to `GET`.
    public var method: HTTPMethod
    /// The absolute `http` or `https` URL to request.
    public var url: URL
    /// Request header fields, sent in order. Must not contain CR, LF or NUL.
    public var headers: HTTPHeaderFields
    /// The request body, if any. `nil` sends no body.
    public var body: Data?
    /// Total time allowed for the whole exchange (connect, send, receive).
    /// `nil` uses the client's ``CurlHTTPClient/Configuration/defaultTimeout``.
    public var timeout: Duration?
    /// Whether to follow redirects (301, 302, 303, 307 and 308 with a `Location`). Defaults to
    /// `false`: the 3xx response is returned as is. Followed redirects go only to `http`/`https`
    /// URLs, never from `https` to `http`, drop secret headers and credentials when the origin
    /// changes, and each target's address is checked like the first one's.
    public var followRedirects: Bool
    /// Credentials for HTTP Basic authentication, if any.
    public var basicCredentials: BasicCredentials?
    /// Largest response body accepted for this request, in bytes.
    /// `nil` uses the client's ``CurlHTTPClient/Configuration/maxResponseBodySize``.
    public var maxResponseBodySize: Int?
    /// Names of further headers that carry secrets (e.g. `X-Api-Key`), compared
    /// case-insensitively. Like ``alwaysSecretHeaderNames`` and ``basicCredentials``, they are
    /// dropped as soon as a followed redirect changes origin (scheme, host or port), and not
    /// sent again for the rest of the redirect chain.
    public var secretHeaderNames: [String]
    /// Whether the current trace context (`traceparent`, `tracestate`) goes along, when tracing
    /// is on. Off by default: only the deployment's own destinations (the campus provider, the
    /// registrar, configured gradebook sources) are told which trace a call belongs to; user-
    /// supplied destinations (webhooks, Web Push endpoints) and third parties (APNs, SMS, email)
    /// never are, since a trace id would link one person's request to another's delivery.
    public var propagatesTraceContext: Bool

    /// Headers treated as secret in every request: dropped on a cross-origin redirect.
    public static let alwaysSecretHeaderNames = ["Authorization", "Proxy-Authorization", "Cookie"]

    public init(
        method: HTTPMethod = .get,
        url: URL,
        headers: HTTPHeaderFields = [:],
        body: Data? = nil,
        timeout: Duration? = nil,
        followRedirects: Bool = false,
        basicCredentials: BasicCredentials? = nil,
        maxResponseBodySize: Int? = nil,
        secretHeaderNames: [String] = [],
        propagatesTraceContext: Bool = false
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.followRedirects = followRedirects
        self.basicCredentials = basicCredentials
        self.maxResponseBodySize = maxResponseBodySize
        self.secretHeaderNames = secretHeaderNames
        self.propagatesTraceContext = propagatesTraceContext
    }

    /// Whether the header `name` is secret for this request (see ``secretHeaderNames``).
    public func isSecretHeader(_ name: String) -> Bool {
        (Self.alwaysSecretHeaderNames + secretHeaderNames).contains { HTTPHeaderFields.namesMatch($0, name) }
    }

    public var description: String { "\(method) \(url.redactedForLogging)" }
}

extension URL {
    /// `scheme://host[:port]/path`, without user info, query or fragment: safe to log.
    var redactedForLogging: String {
        guard let components = URLComponents(url: self, resolvingAgainstBaseURL: false) else {
            return "<unparseable URL>"
        }
        var result = "\(components.scheme ?? "?")://\(components.host ?? "?")"
        if let port = components.port { result += ":\(port)" }
        result += components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return result
    }
}

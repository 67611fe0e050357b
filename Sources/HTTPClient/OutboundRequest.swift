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
/// by accident. They are sent only to the request's own host, never to a redirect target on
/// another host.
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
    /// Whether to follow 3xx redirects. Defaults to `false`: the 3xx response is returned as is.
    public var followRedirects: Bool
    /// Credentials for HTTP Basic authentication, if any.
    public var basicCredentials: BasicCredentials?
    /// Largest response body accepted for this request, in bytes.
    /// `nil` uses the client's ``CurlHTTPClient/Configuration/maxResponseBodySize``.
    public var maxResponseBodySize: Int?

    public init(
        method: HTTPMethod = .get,
        url: URL,
        headers: HTTPHeaderFields = [:],
        body: Data? = nil,
        timeout: Duration? = nil,
        followRedirects: Bool = false,
        basicCredentials: BasicCredentials? = nil,
        maxResponseBodySize: Int? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.followRedirects = followRedirects
        self.basicCredentials = basicCredentials
        self.maxResponseBodySize = maxResponseBodySize
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

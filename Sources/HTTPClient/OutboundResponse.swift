public import Foundation

/// The HTTP protocol version a response was received over.
public enum HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    case http1_0
    case http1_1
    case http2
    case http3
    /// A version libcurl reported that this module does not know.
    case unknown

    public var description: String {
        switch self {
        case .http1_0: "HTTP/1.0"
        case .http1_1: "HTTP/1.1"
        case .http2: "HTTP/2"
        case .http3: "HTTP/3"
        case .unknown: "HTTP/?"
        }
    }
}

/// The final response to an ``OutboundRequest``.
///
/// When redirects are followed, this is the response of the last hop and only its headers
/// are kept.
public struct OutboundResponse: Sendable, Hashable {
    /// The HTTP status code, e.g. 200.
    public var status: Int
    /// Response header fields in the order received, with case-insensitive lookup.
    public var headers: HTTPHeaderFields
    /// The complete response body (empty if none).
    public var body: Data
    /// The HTTP version actually used on the wire.
    public var httpVersion: HTTPVersion
    /// The URL of the response: differs from the request's URL after followed redirects.
    public var url: URL?

    public init(
        status: Int,
        headers: HTTPHeaderFields = [:],
        body: Data = Data(),
        httpVersion: HTTPVersion = .http1_1,
        url: URL? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.httpVersion = httpVersion
        self.url = url
    }

    /// The body decoded as UTF-8 (invalid sequences repaired).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}

public import Foundation

/// What an upstream answered, as the compatibility route passes it on.
public struct UpstreamReply: Sendable, Equatable {
    public var status: Int
    public var contentType: String?
    public var cacheControl: String?
    /// The upstream's `Content-Disposition` (files name themselves with it).
    public var contentDisposition: String?
    public var body: Data
    /// The answer's header fields, names in lower case (the last of a repeated name): what a
    /// REST upstream says beside its body (Canvas's `Link`, `X-Rate-Limit-Remaining`,
    /// `Retry-After`, `WWW-Authenticate`).
    public var headers: [String: String]

    public init(status: Int, contentType: String?, cacheControl: String?, contentDisposition: String? = nil, body: Data, headers: [String: String] = [:]) {
        self.headers = headers
        self.status = status
        self.contentType = contentType
        self.cacheControl = cacheControl
        self.contentDisposition = contentDisposition
        self.body = body
    }
}

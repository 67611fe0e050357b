public import Foundation

/// What an upstream answered, as the compatibility route passes it on.
public struct UpstreamReply: Sendable, Equatable {
    public var status: Int
    public var contentType: String?
    public var cacheControl: String?
    /// The upstream's `Content-Disposition` (files name themselves with it).
    public var contentDisposition: String?
    public var body: Data

    public init(status: Int, contentType: String?, cacheControl: String?, contentDisposition: String? = nil, body: Data) {
        self.status = status
        self.contentType = contentType
        self.cacheControl = cacheControl
        self.contentDisposition = contentDisposition
        self.body = body
    }
}

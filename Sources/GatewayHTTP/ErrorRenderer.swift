import HTTPTypes
public import Hummingbird

/// How errors look under one path prefix. `/v1` answers RFC 9457 problems; a compatibility
/// protocol (for example `/registration/`) registers a renderer that answers the way its
/// clients expect. The renderer returns nil to fall back to a problem document.
public struct ErrorRenderer: Sendable {
    public let pathPrefix: String
    public let render: @Sendable (_ error: any Error, _ request: Request) -> Response?

    public init(pathPrefix: String, render: @escaping @Sendable (any Error, Request) -> Response?) {
        self.pathPrefix = pathPrefix
        self.render = render
    }

    /// Whether the renderer answers for `path`: the prefix, or the prefix without its
    /// trailing slash (`/registration` as well as `/registration/...`).
    public func matches(_ path: String) -> Bool {
        path.hasPrefix(pathPrefix) || (pathPrefix.hasSuffix("/") && path == pathPrefix.dropLast())
    }
}

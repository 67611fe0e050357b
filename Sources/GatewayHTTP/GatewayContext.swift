public import GatewayCore
public import HTTPTypes
public import Hummingbird
public import NIOCore

/// The request context shared by every route: the identity once authenticated, the client
/// address, and the upload limit.
public struct GatewayContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The authenticated caller, set by the access middleware of a guarded route group.
    public var identity: Identity?
    /// The peer's IP address as seen on the socket (or a trusted proxy header).
    public var clientAddress: String?

    /// The request body limit in bytes for this request; larger bodies answer 413. The body
    /// limit middleware sets it from the one configured limit (and its per-route exceptions),
    /// so JSON decoding and the middleware always agree. 1 MiB until then.
    public var maxUploadSize: Int = 1 << 20

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        clientAddress = source.channel.remoteAddress?.ipAddress
    }

    /// The identity of the caller, or a 401 problem when the route was reached unauthenticated.
    public func requireIdentity() throws -> Identity {
        guard let identity else { throw Problem.unauthenticated() }
        return identity
    }
}

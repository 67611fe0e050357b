public import GatewayCore
import HTTPTypes
public import Hummingbird
import NIOCore

/// The request context shared by every route: the identity once authenticated, the client
/// address, and the upload limit.
public struct GatewayContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The authenticated caller, set by the access middleware of a guarded route group.
    public var identity: Identity?
    /// The client's IP address: the socket peer's, or the last `X-Forwarded-For` hop when the
    /// peer is a trusted proxy (set by the front door).
    public var clientAddress: String? {
        get { forwardedClientAddress ?? peerAddress }
        set { forwardedClientAddress = newValue }
    }
    /// The socket peer's IP address, whatever the headers say. The address is taken when the
    /// request arrives (a connection that closes meanwhile forgets its peer, and a client could
    /// otherwise reset the connection to go uncounted by the address throttles); its text is
    /// worked out only when asked, which most requests never do.
    public var peerAddress: String? { peer?.ipAddress }
    private var forwardedClientAddress: String?
    private let peer: SocketAddress?

    /// The request body limit in bytes for this request; larger bodies answer 413. The body
    /// limit middleware sets it from the one configured limit (and its per-route exceptions),
    /// so JSON decoding and the middleware always agree. 1 MiB until then.
    public var maxUploadSize: Int = 1 << 20

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = source.channel.remoteAddress
    }

    /// The identity of the caller, or a 401 problem when the route was reached unauthenticated.
    public func requireIdentity() throws -> Identity {
        guard let identity else { throw Problem.unauthenticated() }
        return identity
    }
}

import HTTPTypes
import Hummingbird
import NIOCore

/// The request context shared by every route: the identity once authenticated, the client
/// address, and the upload limit.
public struct GatewayContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The authenticated caller, set by the access middleware of a guarded route group.
    public var identity: Identity?
    /// The peer's IP address as seen on the socket (or a trusted proxy header).
    public var clientAddress: String?

    /// The request body limit in bytes; larger bodies answer 413.
    public static let defaultMaxUploadSize = 1 << 20
    public var maxUploadSize: Int { Self.defaultMaxUploadSize }

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

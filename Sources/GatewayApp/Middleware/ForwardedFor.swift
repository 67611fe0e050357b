import Foundation
import GatewayCore
import GatewayHTTP
import Hummingbird

/// Replaces the socket address with the last `X-Forwarded-For` hop when the socket peer is a
/// trusted proxy: the address the proxy itself saw (it appends it, or sets the header to it).
/// Earlier hops are written by the client and would let it pick any address the throttle
/// counts; and a peer that is not a trusted proxy writes the whole header itself.
struct ForwardedFor: RequestAdmission {
    let trusted: [AddressRange]

    static func isTrusted(_ peer: String?, in trusted: [AddressRange]) -> Bool {
        guard let peer else { return false }
        return trusted.contains { $0.contains(peer) }
    }

    func admit(_ request: Request, context: inout GatewayContext) throws {
        if Self.isTrusted(context.peerAddress, in: trusted), let header = request.headers[HTTPField.Name("X-Forwarded-For")!],
            let last = header.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty
        {
            context.clientAddress = last
        }
    }
}

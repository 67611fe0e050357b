public import Foundation
public import HTTPClient

/// The cheap half of the SSRF rules for URLs that users hand the gateway (Web Push endpoints,
/// webhook URLs), checked before any request: `https` only, no credentials in the URL, no
/// numeric host form but dotted quads and IPv6 (``NumericHost``: `2130706433`, `0x7f.1` and
/// `127.1` are 127.0.0.1 to libcurl), and no literal loopback, private, link-local, metadata or
/// otherwise restricted IP address unless allow-listed.
///
/// The other half runs at connect time: a ``CurlHTTPClient`` whose
/// `allowedDestinations` does not list them refuses every restricted *resolved* address
/// (a host name pointing at 127.0.0.1 or 169.254.169.254, DNS rebinding, `http://2130706433/`),
/// so this check is a fast, clear refusal, not the guard itself.
public struct PushEndpointPolicy: Sendable, Equatable {
    /// Lets `http` through for loopback hosts (`127.0.0.0/8`, `::1`, `localhost`) so tests and
    /// demos can run a receiver on this machine. The client must still allow-list loopback.
    /// Never set in production.
    public var allowInsecureLoopbackForTesting: Bool
    /// Restricted literal addresses accepted anyway: the same list as the client's
    /// `allowedDestinations`.
    public var allowedDestinations: DestinationAllowList

    /// `https` to public addresses only: the production policy.
    public static let strict = PushEndpointPolicy()

    public init(allowInsecureLoopbackForTesting: Bool = false, allowedDestinations: DestinationAllowList = .none) {
        self.allowInsecureLoopbackForTesting = allowInsecureLoopbackForTesting
        self.allowedDestinations = allowedDestinations
    }

    /// Why `url` must not be requested, or `nil` when it may be (subject to the connect-time
    /// check). The reason names the scheme or address class, never the path or query.
    public func refusal(for url: URL) -> String? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let scheme = components.scheme?.lowercased() else { return "not an absolute URL" }
        guard var host = components.host?.lowercased(), !host.isEmpty else { return "the URL has no host" }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard components.user == nil, components.password == nil else { return "the URL carries credentials" }
        guard !NumericHost.isRefused(host) else { return "the host is a numeric form other than a dotted quad or bracketed IPv6" }
        switch scheme {
        case "https":
            break
        case "http" where allowInsecureLoopbackForTesting && Self.isLoopback(host):
            break
        default:
            return "only https URLs are allowed"
        }
        if let reason = DestinationAllowList.restriction(of: host), !allowedDestinations.permits(address: host, host: host) {
            return "\(reason) addresses are not allowed"
        }
        return nil
    }

    private static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || DestinationAllowList.restriction(of: host) == "loopback"
    }
}

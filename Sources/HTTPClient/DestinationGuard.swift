import CCurl
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Refuses connections to restricted addresses (SSRF protection) for one transfer hop.
///
/// ## Why `CURLOPT_OPENSOCKETFUNCTION`
///
/// libcurl calls the open-socket callback for every socket it is about to `connect()`, with
/// the very `sockaddr` it will connect to, *after* its own DNS resolution: once per candidate
/// address (both families of happy eyeballs), per new connection and per redirect hop. The
/// callback vets that address and either creates the socket or returns `CURL_SOCKET_BAD`, which
/// makes libcurl skip the address. There is no second lookup between the check and the
/// `connect()`, so a DNS-rebinding answer (public at check time, private at connect time) has no
/// window to slip through, and a refused destination never receives a single packet.
///
/// The alternatives were rejected:
/// - `CURLOPT_PREREQFUNCTION` / `CURLINFO_PRIMARY_IP` also see the real peer, but only once the
///   TCP (and TLS) connection is established: a forbidden host is still contacted, which leaks
///   reachability and port state (a port-scan oracle).
/// - Resolving ourselves and pinning with `CURLOPT_RESOLVE` is race-free only if every path
///   (each redirect hop, each address family) is pinned by hand, duplicating libcurl's resolver
///   and happy-eyeballs logic; forgetting one path reopens the hole.
///
/// Connections kept alive in the handle's cache were vetted when they were opened, under the
/// same client configuration (each client owns its handles), and libcurl reuses them only for
/// the same host and port.
///
/// With ``CurlHTTPClient/Configuration/useEnvironmentProxy`` the socket goes to the proxy, so it
/// is the proxy's address that is vetted (allow-list it); the proxy must then enforce its own
/// egress policy.
final class DestinationGuard {
    let allowList: DestinationAllowList
    /// The host of the URL of this hop, for host-name allow-list entries.
    let host: String?
    /// The first address refused during this hop, and why; libcurl then reports
    /// `CURLE_COULDNT_CONNECT` if no other address was allowed and reachable.
    private(set) var refused: (address: String, reason: String)?

    init(allowList: DestinationAllowList, host: String?) {
        self.allowList = allowList
        self.host = host
    }

    /// Returns a new socket for an allowed address, or `CURL_SOCKET_BAD`.
    fileprivate func openSocket(_ address: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
        let family = address.pointee.family
        guard let bytes = Self.addressBytes(address) else {
            // Not IPv4 or IPv6 (e.g. a Unix socket): never expected here, so refuse.
            if refused == nil { refused = (address: "address family \(family)", reason: "not an IP address") }
            return CURL_SOCKET_BAD
        }
        if let reason = allowList.verdict(for: bytes, host: host) {
            if refused == nil { refused = (address: IPNetwork.format(bytes), reason: reason) }
            return CURL_SOCKET_BAD
        }
        return socket(family, address.pointee.socktype, address.pointee.protocol)
    }

    /// The 4 or 16 address bytes of the `sockaddr` libcurl is about to connect to.
    ///
    /// `curl_sockaddr.addr` is declared as a 16-byte `struct sockaddr` but is really `addrlen`
    /// bytes long (28 for IPv6); Swift would copy only the declared size, so the bytes are read
    /// through a pointer to the field instead.
    private static func addressBytes(_ address: UnsafeMutablePointer<curl_sockaddr>) -> [UInt8]? {
        guard let offset = MemoryLayout<curl_sockaddr>.offset(of: \curl_sockaddr.addr) else { return nil }
        let raw = UnsafeRawPointer(address) + offset
        let length = Int(address.pointee.addrlen)
        switch address.pointee.family {
        case AF_INET where length >= MemoryLayout<sockaddr_in>.size:
            var ipv4 = raw.loadUnaligned(as: sockaddr_in.self).sin_addr
            return withUnsafeBytes(of: &ipv4) { Array($0) }
        case AF_INET6 where length >= MemoryLayout<sockaddr_in6>.size:
            var ipv6 = raw.loadUnaligned(as: sockaddr_in6.self).sin6_addr
            return withUnsafeBytes(of: &ipv6) { Array($0) }
        default:
            return nil
        }
    }

    /// Points the handle's open-socket callback at `self`.
    /// The caller must keep `self` alive until `curl_easy_perform` returns.
    func install(on handle: UnsafeMutableRawPointer) -> CURLcode {
        let userData = Unmanaged.passUnretained(self).toOpaque()
        let results = [
            cg_setopt_opensocket_function(handle, guardOpenSocketCallback),
            cg_setopt_pointer(handle, CURLOPT_OPENSOCKETDATA, userData),
        ]
        return results.first { $0 != CURLE_OK } ?? CURLE_OK
    }
}

private func guardOpenSocketCallback(
    _ userData: UnsafeMutableRawPointer?, _ purpose: curlsocktype, _ address: UnsafeMutablePointer<curl_sockaddr>?
) -> curl_socket_t {
    guard let userData, let address, purpose == CURLSOCKTYPE_IPCXN else { return CURL_SOCKET_BAD }
    return Unmanaged<DestinationGuard>.fromOpaque(userData).takeUnretainedValue().openSocket(address)
}

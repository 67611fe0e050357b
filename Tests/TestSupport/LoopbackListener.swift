import Foundation
#if canImport(Glibc)
public import Glibc
#endif

/// A listening TCP socket on a loopback address and an ephemeral port, for the tests' own
/// servers (``LoopbackReceiver``, ``FaultyLink``), with an accept loop on a thread of its own
/// and a deadline after which the server stops itself.
public enum LoopbackListener {
    /// Binds `host` on port 0 and listens: the socket and the port it got.
    public static func open(host: String) throws -> (descriptor: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LoopbackReceiver.POSIXFailure(call: "socket") }
        var address = Self.address(host: host, port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 128) == 0 else {
            close(fd)
            throw LoopbackReceiver.POSIXFailure(call: "bind/listen \(host)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Runs `acceptLoop` on a thread named `name`, and `stop` once `lifetime` has passed.
    public static func start(name: String, lifetime: Duration, acceptLoop: @escaping @Sendable () -> Void, stop: @escaping @Sendable () -> Void) {
        let thread = Thread(block: acceptLoop)
        thread.name = name
        thread.start()
        let seconds = Double(lifetime.components.seconds) + Double(lifetime.components.attoseconds) / 1e18
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: stop)
    }

    /// An IPv4 socket address.
    public static func address(host: String, port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr(host)
        return address
    }
}

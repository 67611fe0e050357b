import Foundation
import Logging
import PostgresNIO
import Storage
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
import PostgresStorage
#endif

/// A man in the middle answers the client's TLS request with "no TLS" (`N`), as a stripping
/// proxy would. With `verify-full` (the default for another host) the client gives up and
/// sends nothing more; with `prefer` (libpq's default, kept for loopback only) it goes on in
/// clear text and sends its startup message, the step before the password.
@Suite("PostgreSQL TLS stripping")
struct PostgresTLSStrippingTests {
    /// A loopback listener that answers one connection's SSLRequest with `N` and records what
    /// the client sends next.
    final class StrippingPeer: Sendable {
        let port: Int
        private let listener: Int32
        private let afterRefusal = Mutex<Data?>(nil)
        private let finished = DispatchSemaphore(value: 0)

        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
            guard bound == 0, listen(fd, 1) == 0 else { throw POSIXError(.EADDRINUSE) }
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
            listener = fd
            port = Int(UInt16(bigEndian: address.sin_port))
            let thread = Thread { [self] in serve() }
            thread.start()
        }

        private func serve() {
            defer { close(listener); finished.signal() }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            defer { close(client) }
            var timeout = timeval(tv_sec: 3, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var request = [UInt8](repeating: 0, count: 8)
            guard recv(client, &request, 8, Int32(MSG_WAITALL)) == 8 else { return }
            // 80877103: the SSLRequest code.
            guard request[4...7] == [0x04, 0xD2, 0x16, 0x2F] else { return }
            _ = send(client, "N", 1, Int32(MSG_NOSIGNAL))
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(client, &buffer, buffer.count, 0)
            afterRefusal.withLock { $0 = Data(buffer.prefix(max(0, count))) }
        }

        /// What the client sent after the refusal (empty: nothing), once the exchange ended.
        func sentAfterRefusal() -> Data? {
            finished.wait()
            return afterRefusal.withLock { $0 }
        }
    }

    static func connect(port: Int, mode: String) async -> Bool {
        guard let settings = try? PostgresSettings(url: "postgres://gateway:pw@127.0.0.1:\(port)/gateway?sslmode=\(mode)", environment: [:]) else {
            return false
        }
        let database = GatewayPostgres(settings: settings, connections: 1, logger: Logger(label: "test"))
        defer { Task { await database.shutdown() } }
        do {
            let connection = try await database.dedicatedConnection()
            try? await connection.close()
            return true
        } catch {
            return false
        }
    }

    @Test func verifyFullSendsNothingToAServerThatRefusesTLS() async throws {
        let peer = try StrippingPeer()
        #expect(await Self.connect(port: peer.port, mode: "verify-full") == false)
        let sent = try #require(peer.sentAfterRefusal())
        #expect(sent.isEmpty, "no startup message, no password: \(sent.count) bytes")
    }

    /// The control: `prefer` goes on in clear text, which is why it is not the default for
    /// another host.
    @Test func preferGoesOnInClearText() async throws {
        let peer = try StrippingPeer()
        _ = await Self.connect(port: peer.port, mode: "prefer")
        let sent = try #require(peer.sentAfterRefusal())
        #expect(String(decoding: sent, as: UTF8.self).contains("gateway"), "the startup message names the user")
    }
}

public import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A TCP relay on a loopback address between the gateway and one push channel's peer (a
/// webhook receiver, a Web Push service, an SMTP server, APNs), that can be told to fail the
/// way real peers fail. Healthy, it relays bytes both ways to the stand-in behind it (TLS and
/// STARTTLS pass through untouched, so certificates for 127.0.0.1 still verify). Faulty, it:
/// - `hang`: accepts and never answers (a peer that stalls until the client gives up);
/// - `reset`: accepts and resets the connection (RST);
/// - `garbled`: answers a few bytes that are not the protocol, then closes: a truncated HTTP
///   response, which is also a garbled SMTP greeting and a record no TLS client accepts;
/// - `refusal`: the protocol's own refusal, then closes: HTTP `500`, SMTP `421` (a TLS link has
///   none at this level: see ``supports(_:)``).
///
/// Changing the fault cuts every open connection (a stalled peer finally gives up; a failing
/// one drops what it had). Bounded like ``LoopbackReceiver``: it stops itself after `lifetime`.
public final class FaultyLink: Sendable {
    public enum Fault: String, Sendable, CaseIterable {
        case none, hang, reset, garbled, refusal
    }

    /// What the peer speaks first: which refusal it has.
    public enum Speech: Sendable {
        case http, smtp, tls
    }

    private struct State {
        var fault: Fault = .none
        /// Every open socket (clients and upstream sides), to close on stop.
        var open: Set<Int32> = []
        /// Client sockets a `hang` holds.
        var held: Set<Int32> = []
        var accepted = 0
        var stopped = false
    }

    public let host: String
    public let port: Int
    public let speech: Speech
    /// The stand-in's port on 127.0.0.1 that a healthy link relays to; nil: a healthy link
    /// closes each connection at once (nothing stands behind it).
    public let upstreamPort: Int?
    private let listener: Int32
    private let state = Mutex(State())

    public init(host: String = "127.0.0.1", speech: Speech, upstreamPort: Int?, lifetime: Duration = .seconds(600)) throws {
        self.host = host
        self.speech = speech
        self.upstreamPort = upstreamPort
        (listener, port) = try LoopbackListener.open(host: host)
        LoopbackListener.start(name: "faulty-link-\(port)", lifetime: lifetime, acceptLoop: { [self] in acceptLoop() }, stop: { [self] in stop() })
    }

    deinit { stop() }

    /// Whether this link can show `fault` (a TLS link has no refusal of its own).
    public func supports(_ fault: Fault) -> Bool { !(fault == .refusal && speech == .tls) }

    /// The fault connections meet. Changing it cuts every connection open now, relayed ones
    /// included, as a peer that fails drops what it had (a client reusing one would otherwise
    /// never see the fault), and closes the connections a `hang` holds.
    public var fault: Fault {
        get { state.withLock { $0.fault } }
        set {
            precondition(supports(newValue), "a \(speech) link has no \(newValue)")
            let (open, held) = state.withLock { state in
                state.fault = newValue
                let held = state.held
                state.held = []
                state.open.subtract(held)
                return (state.open, held)
            }
            // Threads serve the other open sockets and close them once they see the shutdown.
            for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
            for fd in held { Self.closeNow(fd) }
        }
    }

    /// Connections accepted so far, whatever the fault.
    public var acceptedConnections: Int { state.withLock { $0.accepted } }

    /// Connections a `hang` holds now.
    public var heldConnections: Int { state.withLock { $0.held.count } }

    /// `http://<host>:<port><path>`.
    public func url(_ path: String) -> String { "http://\(host):\(port)\(path)" }

    /// Closes the listener and every connection; later calls do nothing.
    public func stop() {
        let open: Set<Int32>? = state.withLock { state in
            guard !state.stopped else { return nil }
            state.stopped = true
            let open = state.open
            state.open = []
            state.held = []
            return open
        }
        guard let open else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in open { Self.closeNow(fd) }
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            let fault: Fault? = state.withLock { state in
                guard !state.stopped else { return nil }
                state.accepted += 1
                state.open.insert(fd)
                if state.fault == .hang { state.held.insert(fd) }
                return state.fault
            }
            guard let fault else {
                close(fd)
                return
            }
            switch fault {
            case .hang:
                continue
            case .reset:
                // SO_LINGER with a zero timeout: close sends RST instead of FIN.
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                forget(fd)
                close(fd)
            case .none, .garbled, .refusal:
                let thread = Thread { [self] in serve(fd, fault) }
                thread.start()
            }
        }
    }

    private func serve(_ fd: Int32, _ fault: Fault) {
        switch fault {
        case .none:
            relay(fd)
            return
        case .garbled:
            // Whatever the client says first (a request, a ClientHello, or nothing while it
            // waits for an SMTP greeting), the answer breaks off mid-body.
            readBriefly(fd)
            send(fd, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n{\"trunc")
        case .refusal:
            switch speech {
            case .http:
                readBriefly(fd)
                send(fd, "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nConnection: close\r\n\r\noops\n")
            case .smtp:
                send(fd, "421 4.3.2 Service not available, closing transmission channel\r\n")
            case .tls:
                break
            }
        case .hang, .reset:
            return
        }
        if forget(fd) { Self.closeNow(fd) }
    }

    /// Relays both ways until either side closes, then closes both.
    private func relay(_ client: Int32) {
        guard let upstreamPort else {
            if forget(client) { Self.closeNow(client) }
            return
        }
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = LoopbackListener.address(host: "127.0.0.1", port: upstreamPort)
        let connected = upstream >= 0 && withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
        guard connected, state.withLock({ state in state.stopped ? false : state.open.insert(upstream).inserted }) else {
            if upstream >= 0 { close(upstream) }
            if forget(client) { Self.closeNow(client) }
            return
        }
        let done = DispatchGroup()
        for (from, to) in [(client, upstream), (upstream, client)] {
            done.enter()
            Thread {
                var buffer = [UInt8](repeating: 0, count: 16 * 1024)
                while true {
                    let count = recv(from, &buffer, buffer.count, 0)
                    guard count > 0 else { break }
                    var sent = 0
                    while sent < count {
                        let n = buffer.withUnsafeBytes { Glibc.send(to, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL)) }
                        guard n > 0 else { break }
                        sent += n
                    }
                    guard sent == count else { break }
                }
                // One side is done: end both directions, so the other thread's recv returns.
                shutdown(from, Int32(SHUT_RDWR))
                shutdown(to, Int32(SHUT_RDWR))
                done.leave()
            }.start()
        }
        done.wait()
        for fd in [client, upstream] where forget(fd) { close(fd) }
    }

    /// Drops `fd` from the open set; false when `stop()` or a fault change already closed it.
    @discardableResult
    private func forget(_ fd: Int32) -> Bool {
        state.withLock { $0.open.remove(fd) != nil }
    }

    /// Reads what arrives within 300 ms, up to the end of an HTTP head.
    private func readBriefly(_ fd: Int32) {
        var timeout = timeval(tv_sec: 0, tv_usec: 300_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var seen = Data()
        while seen.count < 64 * 1024 {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { return }
            seen.append(contentsOf: buffer[0..<count])
            if seen.firstRange(of: Data("\r\n\r\n".utf8)) != nil { return }
        }
    }

    private func send(_ fd: Int32, _ text: String) {
        _ = text.utf8CString.withUnsafeBufferPointer { Glibc.send(fd, $0.baseAddress, text.utf8.count, Int32(MSG_NOSIGNAL)) }
    }

    private static func closeNow(_ fd: Int32) {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }
}

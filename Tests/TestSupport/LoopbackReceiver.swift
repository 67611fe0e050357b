public import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A TCP server on a loopback address and an ephemeral port, standing in for a student's
/// webhook receiver: it either answers every HTTP request with 204 (or, while
/// ``unavailableRetryAfter`` is set, 503 with `Retry-After`) and records it, or accepts
/// connections and never answers (a receiver that hangs). Either way it is bounded: it stops
/// itself (closing every connection) after `lifetime`, and `stop()` does the same sooner.
public final class LoopbackReceiver: Sendable {
    public enum Behaviour: Sendable {
        /// Reads each request and answers `204 No Content`.
        case answer
        /// Accepts connections, reads nothing, answers nothing.
        case silent
    }

    /// One request as received.
    public struct Request: Sendable {
        public var requestLine: String
        /// Header names lowercased.
        public var headers: [String: String]
        public var body: Data
        /// When it had been read whole.
        public var arrived = ContinuousClock.now
        /// The status it was answered with.
        public var status = 204
    }

    private struct State {
        var connections: Set<Int32> = []
        var requests: [Request] = []
        var accepted = 0
        var stopped = false
        var unavailableRetryAfter: Int?
    }

    public let host: String
    public let port: Int
    let behaviour: Behaviour
    private let listener: Int32
    private let state = Mutex(State())

    public init(host: String = "127.0.0.1", behaviour: Behaviour, lifetime: Duration = .seconds(60)) throws {
        self.host = host
        self.behaviour = behaviour
        (listener, port) = try LoopbackListener.open(host: host)
        LoopbackListener.start(name: "loopback-receiver-\(port)", lifetime: lifetime, acceptLoop: { [self] in acceptLoop() }, stop: { [self] in stop() })
    }

    deinit { stop() }

    /// `http://<host>:<port><path>`.
    public func url(_ path: String = "/hook") -> String { "http://\(host):\(port)\(path)" }

    /// The requests answered so far, in order.
    public var requests: [Request] { state.withLock { $0.requests } }

    /// While set, every request is answered `503 Service Unavailable` with this `Retry-After`
    /// (seconds), as a receiver having a bad time; nil: `204` again.
    public var unavailableRetryAfter: Int? {
        get { state.withLock { $0.unavailableRetryAfter } }
        set { state.withLock { $0.unavailableRetryAfter = newValue } }
    }

    /// Connections accepted so far.
    public var acceptedConnections: Int { state.withLock { $0.accepted } }

    /// Connections open now (a silent receiver keeps every one until its client gives up).
    public var openConnections: Int { state.withLock { $0.connections.count } }

    /// Closes the listener and every connection; later calls do nothing.
    public func stop() {
        let open: Set<Int32>? = state.withLock { state in
            guard !state.stopped else { return nil }
            state.stopped = true
            let open = state.connections
            state.connections = []
            return open
        }
        guard let open else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in open {
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
        }
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            let admitted = state.withLock { state in
                guard !state.stopped else { return false }
                state.accepted += 1
                state.connections.insert(fd)
                return true
            }
            guard admitted else {
                close(fd)
                return
            }
            if case .answer = behaviour {
                let thread = Thread { [self] in serve(fd) }
                thread.start()
            }
        }
    }

    /// Reads one request (headers, then `Content-Length` bytes), records it, answers, closes.
    private func serve(_ fd: Int32) {
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var request: Request?
        while request == nil {
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { break }
            buffer.append(contentsOf: chunk[0..<count])
            request = Self.parse(buffer)
        }
        if var request {
            let answer = state.withLock { state in
                request.status = state.unavailableRetryAfter == nil ? 204 : 503
                state.requests.append(request)
                return state.unavailableRetryAfter.map {
                    "HTTP/1.1 503 Service Unavailable\r\nRetry-After: \($0)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                } ?? "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            }
            _ = answer.utf8CString.withUnsafeBufferPointer { send(fd, $0.baseAddress, answer.utf8.count, Int32(MSG_NOSIGNAL)) }
        }
        let mine = state.withLock { $0.connections.remove(fd) != nil }
        if mine {
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
        }
    }

    /// A complete request in `buffer`, or nil while more bytes are needed.
    public static func parse(_ buffer: Data) -> Request? {
        guard let end = buffer.firstRange(of: Data("\r\n\r\n".utf8)) else { return nil }
        let head = String(decoding: buffer[buffer.startIndex..<end.lowerBound], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst()
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        let body = buffer[end.upperBound...]
        guard body.count >= length else { return nil }
        return Request(requestLine: requestLine, headers: headers, body: Data(body.prefix(length)))
    }

    struct POSIXFailure: Error, CustomStringConvertible {
        var call: String
        var description: String { "\(call) failed: errno \(errno)" }
    }
}

import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// What the `/echo` route sends back, as JSON.
struct EchoPayload: Codable, Sendable {
    var method: String
    var uri: String
    var headers: [[String]]
    var body: String

    /// First value of the header `name` (case-insensitive).
    func header(_ name: String) -> String? {
        headers.first { $0[0].lowercased() == name.lowercased() }?[1]
    }
}

/// Counts requests the server is handling at once, to check the client's concurrency bound.
final class ServerStats: @unchecked Sendable {
    // @unchecked: both counters are only touched while holding `lock`.
    private let lock = NSLock()
    private var inFlight = 0
    private var maxInFlight = 0
    private var total = 0
    private var connections = 0

    func begin() {
        lock.withLock {
            inFlight += 1
            total += 1
            maxInFlight = max(maxInFlight, inFlight)
        }
    }

    func end() { lock.withLock { inFlight -= 1 } }
    func connectionOpened() { lock.withLock { connections += 1 } }
    var connectionCount: Int { lock.withLock { connections } }
    var maximumConcurrent: Int { lock.withLock { maxInFlight } }
    var totalRequests: Int { lock.withLock { total } }
}

/// A tiny HTTP/1.1 server on 127.0.0.1 and an ephemeral port, for exercising the client.
///
/// Routes:
/// - `/echo…`: JSON ``EchoPayload`` of the request (any method).
/// - `/status/N`: status N.
/// - `/sleep/MS`: answers after MS milliseconds.
/// - `/redirect`: 302 to `/echo?from=redirect`.
/// - `/redirect-to?location=URL[&status=N]`: status N (default 302) to `location`, verbatim.
/// - `/loop/N`: 302 to `/loop/N-1`, and `/loop/0` to `/echo`: N + 1 redirects in all.
/// - `/bytes/N`: N bytes with a Content-Length; `/chunked-bytes/N`: the same, chunked.
/// - `/auth`: 200 only with Basic credentials alice / s3cret, else 401.
/// - `/headers`: repeated and mixed-case response headers.
final class TestHTTPServer: Sendable {
    static let username = "alice"
    static let password = "s3cret"

    let host: String
    let port: Int
    let stats: ServerStats
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel

    private init(host: String, port: Int, stats: ServerStats, group: MultiThreadedEventLoopGroup, channel: any Channel) {
        self.host = host
        self.port = port
        self.stats = stats
        self.group = group
        self.channel = channel
    }

    /// Starts a server on `host` (an IPv4 loopback address) and an ephemeral port.
    static func start(host: String = "127.0.0.1") async throws -> TestHTTPServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let stats = ServerStats()
        do {
            let channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        try channel.pipeline.syncOperations.addHandler(TestRouteHandler(stats: stats))
                    }
                }
                .bind(host: host, port: 0)
                .get()
            let port = channel.localAddress?.port ?? 0
            return TestHTTPServer(host: host, port: port, stats: stats, group: group, channel: channel)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    func url(_ pathAndQuery: String) -> URL {
        URL(string: "http://\(host):\(port)\(pathAndQuery)")!
    }

    /// `/redirect-to` answering `status` with `Location: location` (sent verbatim).
    func redirect(to location: String, status: Int = 302) -> URL {
        let encoded = location.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return url("/redirect-to?status=\(status)&location=\(encoded)")
    }

    func shutdown() async throws {
        try? await channel.close()
        try await group.shutdownGracefully()
    }
}

/// Runs `body` with a fresh server on `host` and always shuts the server down.
func withTestServer<T>(host: String = "127.0.0.1", _ body: (TestHTTPServer) async throws -> T) async throws -> T {
    let server = try await TestHTTPServer.start(host: host)
    do {
        let result = try await body(server)
        try await server.shutdown()
        return result
    } catch {
        try? await server.shutdown()
        throw error
    }
}

private final class TestRouteHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let stats: ServerStats
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()

    init(stats: ServerStats) { self.stats = stats }

    func channelActive(context: ChannelHandlerContext) {
        stats.connectionOpened()
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.clear()
            stats.begin()
        case .body(var chunk):
            body.writeBuffer(&chunk)
        case .end:
            guard let head else { return }
            self.head = nil
            route(context: context, head: head, body: String(buffer: body))
        }
    }

    private func route(context: ChannelHandlerContext, head: HTTPRequestHead, body: String) {
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        let parts = path.split(separator: "/").map(String.init)
        switch (parts.first ?? "", parts.count > 1 ? Int(parts[1]) : nil) {
        case ("echo", _):
            let payload = EchoPayload(
                method: head.method.rawValue, uri: head.uri,
                headers: head.headers.map { [$0.name, $0.value] }, body: body)
            let json = (try? JSONEncoder().encode(payload)) ?? Data()
            respond(context, head, .ok, [("Content-Type", "application/json")], String(decoding: json, as: UTF8.self))
        case ("status", let code?):
            respond(context, head, HTTPResponseStatus(statusCode: code), [], "status \(code)")
        case ("sleep", let millis?):
            context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(Int64(millis))) {
                self.respond(context, head, .ok, [], "slept \(millis)")
            }
        case ("redirect-to", _):
            let query = URLComponents(string: head.uri)?.queryItems ?? []
            let location = query.first { $0.name == "location" }?.value ?? "/"
            let status = query.first { $0.name == "status" }?.value.flatMap { Int($0) } ?? 302
            respond(context, head, HTTPResponseStatus(statusCode: status), [("Location", location)], "")
        case ("loop", let count?):
            respond(context, head, .found, [("Location", count > 0 ? "/loop/\(count - 1)" : "/echo")], "")
        case ("redirect", _):
            respond(context, head, .found, [("Location", "/echo?from=redirect")], "")
        case ("bytes", let count?):
            respond(context, head, .ok, [], String(repeating: "a", count: count))
        case ("chunked-bytes", let count?):
            respondChunked(context, head, byteCount: count)
        case ("auth", _):
            let expected = "Basic " + Data("\(TestHTTPServer.username):\(TestHTTPServer.password)".utf8).base64EncodedString()
            if head.headers["Authorization"].first == expected {
                respond(context, head, .ok, [], "welcome")
            } else {
                respond(context, head, .unauthorized, [("WWW-Authenticate", "Basic realm=\"test\"")], "no")
            }
        case ("headers", _):
            respond(context, head, .ok, [("Set-Cookie", "a=1"), ("X-Mixed-Case", "Yes"), ("Set-Cookie", "b=2")], "")
        default:
            respond(context, head, .notFound, [], "not found")
        }
    }

    private func respond(
        _ context: ChannelHandlerContext, _ request: HTTPRequestHead, _ status: HTTPResponseStatus,
        _ extraHeaders: [(String, String)], _ body: String
    ) {
        var headers = HTTPHeaders(extraHeaders)
        headers.add(name: "Content-Length", value: "\(body.utf8.count)")
        writeResponse(context, request, status, headers, [ByteBuffer(string: body)])
    }

    private func respondChunked(_ context: ChannelHandlerContext, _ request: HTTPRequestHead, byteCount: Int) {
        let headers: HTTPHeaders = ["Transfer-Encoding": "chunked"]
        let chunkSize = 64 * 1024
        let chunks = stride(from: 0, to: byteCount, by: chunkSize).map {
            ByteBuffer(repeating: UInt8(ascii: "b"), count: min(chunkSize, byteCount - $0))
        }
        writeResponse(context, request, .ok, headers, chunks)
    }

    private func writeResponse(
        _ context: ChannelHandlerContext, _ request: HTTPRequestHead, _ status: HTTPResponseStatus,
        _ headers: HTTPHeaders, _ chunks: [ByteBuffer]
    ) {
        stats.end()
        guard context.channel.isActive else { return }
        let keepAlive = request.isKeepAlive
        var head = HTTPResponseHead(version: request.version, status: status, headers: headers)
        head.headers.replaceOrAdd(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        for chunk in chunks where chunk.readableBytes > 0 {
            context.write(wrapOutboundOut(.body(.byteBuffer(chunk))), promise: nil)
        }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            if !keepAlive { channel.close(promise: nil) }
        }
    }
}

import Telemetry
public import Tracing
import Foundation
public import Logging

/// The production ``HTTPClient``, backed by libcurl.
///
/// Each request runs `curl_easy_perform` on one of a fixed number of dedicated threads (never
/// on Swift's cooperative pool or an event loop); callers simply `await`. Requests beyond the
/// thread count wait in a FIFO queue.
///
/// Every request has a connect timeout and a total timeout, TLS certificates and host names are
/// always verified, only `http` and `https` are allowed (also for redirects), redirects are not
/// followed unless asked for, HTTP/2 is used when an HTTPS server offers it, and response bodies
/// are capped in size. Cancelling the calling task aborts the transfer.
///
/// Outbound security (server-side request forgery and secret leaks):
/// - connections to loopback, private, link-local, unspecified, CGNAT and cloud metadata
///   addresses are refused unless ``Configuration/allowedDestinations`` lists them; the check is
///   on the resolved address libcurl connects to (see ``DestinationAllowList``);
/// - a redirect from `https` to `http`, or to any scheme but `http`/`https`, is not followed;
/// - `Authorization`, `Proxy-Authorization`, `Cookie`, Basic credentials and the request's
///   ``OutboundRequest/secretHeaderNames`` are dropped once a redirect changes origin;
/// - the trace context (`traceparent`, `tracestate`) goes only with a request that sets
///   ``OutboundRequest/propagatesTraceContext`` (the deployment's own destinations), never with
///   one to a user-supplied or third-party destination.
///
/// Call ``shutdown()`` (or drop the last reference) to let the threads exit once the queued
/// requests are done.
public final class CurlHTTPClient: HTTPClient {
    /// Settings shared by all requests of one client.
    public struct Configuration: Sendable {
        /// Number of dedicated transfer threads, i.e. the maximum number of concurrent transfers.
        public var threadCount: Int
        /// Maximum time to establish a connection (TCP and TLS).
        public var connectTimeout: Duration
        /// Total time allowed per request unless the request sets ``OutboundRequest/timeout``.
        public var defaultTimeout: Duration
        /// Largest response body accepted, in bytes, unless the request sets its own limit.
        public var maxResponseBodySize: Int
        /// Maximum number of redirects followed when a request enables following.
        public var maxRedirects: Int
        /// A PEM file of extra CA certificates to trust (e.g. for a self-signed upstream in
        /// tests). Verification stays on. It is passed as `CURLOPT_CAINFO`, replacing libcurl's
        /// default CA *bundle*; libcurl's CA *directory* (`CURLOPT_CAPATH`, `/etc/ssl/certs` on
        /// Debian) stays in effect, so the system's CAs remain trusted alongside it there.
        public var additionalCAFile: String?
        /// `User-Agent` sent unless a request sets its own; `nil` sends none.
        public var userAgent: String?
        /// Whether to honour `http_proxy`/`https_proxy`/`no_proxy` environment variables.
        /// Off by default so that upstream traffic goes where the configuration says.
        public var useEnvironmentProxy: Bool
        /// Restricted destinations (loopback, private, link-local, …) this client may still
        /// connect to: networks (`127.0.0.0/8`, `::1`) and exact host names. Empty by default,
        /// so only public addresses are reachable; tests and development sources on 127.0.0.1
        /// use ``DestinationAllowList/loopback``. Checked on every connection, including each
        /// redirect hop, against the address actually connected to.
        public var allowedDestinations: DestinationAllowList
        /// Where request summaries (method, scheme, host, path, status, duration) are logged at
        /// debug level. Never logs query strings, headers, bodies or credentials.
        public var logger: Logger

        public init(
            threadCount: Int = 8,
            connectTimeout: Duration = .seconds(10),
            defaultTimeout: Duration = .seconds(30),
            maxResponseBodySize: Int = 10 * 1024 * 1024,
            maxRedirects: Int = 5,
            additionalCAFile: String? = nil,
            userAgent: String? = "campus-gateway",
            useEnvironmentProxy: Bool = false,
            allowedDestinations: DestinationAllowList = .none,
            logger: Logger = Logger(label: "campus-gateway.http-client")
        ) {
            self.threadCount = threadCount
            self.connectTimeout = connectTimeout
            self.defaultTimeout = defaultTimeout
            self.maxResponseBodySize = maxResponseBodySize
            self.maxRedirects = maxRedirects
            self.additionalCAFile = additionalCAFile
            self.userAgent = userAgent
            self.useEnvironmentProxy = useEnvironmentProxy
            self.allowedDestinations = allowedDestinations
            self.logger = logger
        }
    }

    /// The configuration this client was created with.
    public let configuration: Configuration
    private let pool: TransferThreadPool<CurlEasyHandle?>

    /// Requests waiting for a free transfer thread (operators' metrics, tests).
    public var queuedRequests: Int { pool.pendingJobCount }

    /// Creates a client and starts its ``Configuration/threadCount`` transfer threads.
    public init(configuration: Configuration = Configuration()) {
        CurlGlobal.ensureInitialized()
        self.configuration = configuration
        self.pool = TransferThreadPool(
            threadCount: max(1, configuration.threadCount),
            name: "curl-transfer",
            makeWorker: { CurlEasyHandle() }
        )
    }

    deinit {
        pool.shutdown()
    }

    /// The loaded libcurl's version line (libcurl, TLS library, nghttp2, …), for diagnostics.
    public static var libcurlVersion: String { CurlGlobal.versionDescription }

    /// Whether the loaded libcurl can speak HTTP/2. When it can, HTTPS requests offer `h2`
    /// via ALPN and use it if the server agrees; plain `http` always uses HTTP/1.1.
    public static var supportsHTTP2: Bool { CurlGlobal.supportsHTTP2 }

    /// Stops accepting requests: later calls to ``execute(_:)`` throw
    /// ``HTTPClientError/shutDown``. Requests already accepted still complete, then the
    /// transfer threads exit. Does not block; calling it again is harmless.
    public func shutdown() {
        pool.shutdown()
    }

    /// Performs `request` on a transfer thread and returns the final response.
    ///
    /// - Throws: ``HTTPClientError`` for transport failures; `CancellationError` if the calling
    ///   task is cancelled first (a running transfer is aborted within about a second).
    public func execute(_ request: OutboundRequest) async throws -> OutboundResponse {
        guard GatewayTracing.isEnabled else { return try await perform(request) }
        // A client span: the method, host, port and status; never the path's query, headers or
        // body. The trace context goes along in `traceparent` only when the request asks for it
        // (``OutboundRequest/propagatesTraceContext``: the deployment's own destinations).
        return try await GatewayTracing.span("HTTP \(request.method.rawValue)", ofKind: .client) { span in
            span?.attributes.merge(Self.spanAttributes(of: request))
            var request = request
            if request.propagatesTraceContext {
                var carrier: [String: String] = [:]
                GatewayTracing.inject(into: &carrier)
                for (name, value) in carrier.sorted(by: { $0.key < $1.key }) where !request.headers.contains(name) {
                    request.headers.add(name: name, value: value)
                }
            }
            let response = try await perform(request)
            span?.attributes["http.response.status_code"] = response.status
            if response.status >= 500 { span?.setStatus(SpanStatus(code: .error)) }
            return response
        }
    }

    /// What a client span says of `request`: its method, host and port. Never its path or query
    /// (which may carry a secret such as Moodle's `wstoken`), headers or body.
    public static func spanAttributes(of request: OutboundRequest) -> SpanAttributes {
        var attributes = SpanAttributes()
        attributes["http.request.method"] = request.method.rawValue
        attributes["server.address"] = request.url.host ?? ""
        if let port = request.url.port { attributes["server.port"] = port }
        return attributes
    }

    private func perform(_ request: OutboundRequest) async throws -> OutboundResponse {
        let transfer = try PreparedTransfer(request, configuration: configuration)
        try Task.checkCancellation()
        let logger = configuration.logger
        let started = ContinuousClock.now
        do {
            let response = try await runTransfer { easy, ticket in easy.perform(transfer, ticket: ticket) }
            logger.debug("outbound request completed", metadata: [
                "request": "\(request)",
                "status": "\(response.status)",
                "http_version": "\(response.httpVersion)",
                "duration": "\(ContinuousClock.now - started)",
            ])
            return response
        } catch {
            logger.debug("outbound request failed", metadata: [
                "request": "\(request)",
                "error": "\(error)",
                "duration": "\(ContinuousClock.now - started)",
            ])
            throw error
        }
    }

    /// Runs one blocking transfer on a transfer thread with that thread's easy handle, and
    /// waits for it; cancelling the calling task releases a queued transfer at once and sets
    /// the ticket's flag for a running one. HTTP requests and mails (``SMTPMailer``) share the
    /// threads, so the client's ``Configuration/threadCount`` bounds them together.
    func runTransfer<Value: Sendable>(
        _ work: @escaping @Sendable (CurlEasyHandle, TransferTicket<Value>) -> Result<Value, any Error>
    ) async throws -> Value {
        let ticket = TransferTicket<Value>()
        let pool = self.pool
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard ticket.install(continuation) else { return }
                let accepted = pool.submit { handle in
                    guard ticket.begin() else { return }
                    guard let easy = handle else {
                        ticket.finish(.failure(HTTPClientError.other(code: -1, message: "curl_easy_init failed")))
                        return
                    }
                    ticket.finish(work(easy, ticket))
                }
                if !accepted { ticket.finish(.failure(HTTPClientError.shutDown)) }
            }
        } onCancel: {
            ticket.cancel()
        }
    }
}

import Telemetry
import Tracing
import CCurl
import Foundation
import Synchronization

/// Options for ``CurlMultiExecutor``.
public struct CurlMultiOptions: Sendable {
    /// A PEM file of extra trust anchors (tests); verification itself is never turned off.
    public var additionalCAFile: String?
    /// `CURLMOPT_MAX_HOST_CONNECTIONS`. Without a limit, libcurl (7.88) would open a new
    /// connection for every transfer that finds the open connections' streams all busy.
    public var maxHostConnections: Int
    /// `CURLMOPT_MAX_CONCURRENT_STREAMS`: streams per HTTP/2 connection before libcurl uses
    /// another (the server's own limit applies too).
    public var maxConcurrentStreams: Int

    /// Transfers handed to libcurl at once: every stream of every allowed connection. The
    /// rest wait in the executor, in order.
    public var maxTransfersInFlight: Int { max(maxHostConnections, 1) * max(maxConcurrentStreams, 1) }
    /// `CURLOPT_CONNECTTIMEOUT_MS` for each new connection.
    public var connectTimeoutMilliseconds: Int
    /// Larger response bodies fail the transfer (APNs answers are tiny, hence the default).
    public var maxResponseBodySize: Int

    public init(
        additionalCAFile: String? = nil, maxHostConnections: Int = 4, maxConcurrentStreams: Int = 500,
        connectTimeoutMilliseconds: Int = 10_000, maxResponseBodySize: Int = 64 * 1024
    ) {
        self.additionalCAFile = additionalCAFile
        self.maxHostConnections = maxHostConnections
        self.maxConcurrentStreams = maxConcurrentStreams
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        self.maxResponseBodySize = maxResponseBodySize
    }
}

/// Runs HTTP/2 POSTs concurrently on one libcurl multi handle, so many requests share a few
/// connections as multiplexed streams instead of one connection each.
///
/// One dedicated thread loops over `curl_multi_perform`, `curl_multi_info_read` and
/// `curl_multi_poll`. ``perform(_:)`` queues a transfer and wakes the loop with
/// `curl_multi_wakeup`; the loop adds it to the multi handle and, when libcurl reports it done,
/// completes the waiting task. Every easy handle asks for HTTP/2 over TLS
/// (`CURL_HTTP_VERSION_2TLS`) and sets `CURLOPT_PIPEWAIT`, so a transfer waits for an
/// existing connection to confirm multiplexing rather than opening a new one. Past
/// ``CurlMultiOptions/maxTransfersInFlight``, transfers wait in the loop, in order.
///
/// ``shutdown()`` (or releasing the executor) fails queued and running transfers with
/// ``CurlMultiError/shutDown`` and ends the thread.
public final class CurlMultiExecutor: Sendable {
    private let shared: Shared
    private let maxResponseBodySize: Int

    public init(options: CurlMultiOptions, threadName: String = "curl-multi") {
        CurlGlobal.ensureInitialized()
        let shared = Shared()
        self.shared = shared
        self.maxResponseBodySize = options.maxResponseBodySize
        let thread = Thread { CurlMultiLoop(shared: shared, options: options).run() }
        thread.name = threadName
        thread.start()
    }

    deinit { shared.shutdown() }

    /// Sends `request` and waits for its response or failure.
    public func perform(_ request: CurlMultiRequest) async -> Result<CurlMultiResponse, CurlMultiError> {
        guard GatewayTracing.isEnabled else { return await transfer(request) }
        // A client span (method POST, the host; never the path, headers or body). No
        // `traceparent` goes to the push services (APNs, Web Push), which do not trace with us.
        let outcome = try? await GatewayTracing.span("HTTP POST", ofKind: .client) { span in
            span?.attributes["http.request.method"] = "POST"
            span?.attributes["server.address"] = URL(string: request.url)?.host ?? ""
            let result = await transfer(request)
            switch result {
            case .success(let response): span?.attributes["http.response.status_code"] = response.status
            case .failure: span?.setStatus(SpanStatus(code: .error))
            }
            return result
        }
        return outcome ?? .failure(.shutDown)
    }

    private func transfer(_ request: CurlMultiRequest) async -> Result<CurlMultiResponse, CurlMultiError> {
        let flag = CurlMultiCancelFlag(id: shared.nextID.wrappingAdd(1, ordering: .relaxed).oldValue)
        let shared = self.shared, limit = maxResponseBodySize
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let transfer = CurlMultiTransfer(request: request, cancelFlag: flag, maxBodySize: limit, continuation: continuation)
                if !shared.submit(transfer) { transfer.complete(.failure(.shutDown)) }
            }
        } onCancel: {
            flag.cancel()
            shared.requestCancel(flag.id)
        }
    }

    /// Fails everything queued or running and stops the loop thread. Does not block; calling
    /// it again is harmless.
    public func shutdown() { shared.shutdown() }

    /// Connections libcurl has opened so far (`CURLINFO_NUM_CONNECTS`, summed).
    public var connectionsOpened: Int { shared.connectionsOpened.load(ordering: .relaxed) }

    /// What the submitting tasks and the loop thread share: the inbox under a lock, counters.
    final class Shared: Sendable {
        struct Inbox {
            var pending: [CurlMultiTransfer] = []
            var cancelled: [UInt64] = []
            var isShutDown = false
            /// Set while the loop's multi handle is alive; wakeups only go to a live handle.
            var multi: WakeupHandle?
        }

        let inbox = Mutex(Inbox())
        let nextID = Atomic<UInt64>(1)
        let connectionsOpened = Atomic<Int>(0)

        /// Queues `transfer`; `false` once shut down.
        func submit(_ transfer: CurlMultiTransfer) -> Bool {
            inbox.withLock { inbox in
                guard !inbox.isShutDown else { return false }
                inbox.pending.append(transfer)
                // One wakeup per batch: later submitters find it already pending.
                if inbox.pending.count == 1 { inbox.multi?.wake() }
                return true
            }
        }

        func requestCancel(_ id: UInt64) {
            inbox.withLock { inbox in
                guard !inbox.isShutDown else { return }
                inbox.cancelled.append(id)
                inbox.multi?.wake()
            }
        }

        func shutdown() {
            inbox.withLock { inbox in
                guard !inbox.isShutDown else { return }
                inbox.isShutDown = true
                inbox.multi?.wake()
            }
        }

        /// Publishes the loop's multi handle for wakeups.
        func attach(_ multi: WakeupHandle) { inbox.withLock { $0.multi = multi } }

        /// Takes what arrived since the last call. On shutdown also withdraws the multi handle
        /// so nobody wakes it after it is freed.
        func drain() -> (pending: [CurlMultiTransfer], cancelled: [UInt64], isShutDown: Bool) {
            inbox.withLock { inbox in
                let taken = (inbox.pending, inbox.cancelled, inbox.isShutDown)
                inbox.pending = []
                inbox.cancelled = []
                if inbox.isShutDown { inbox.multi = nil }
                return taken
            }
        }
    }
}

/// The loop's multi handle as other threads may use it: only to call `curl_multi_wakeup`,
/// which libcurl allows from any thread, and only under the inbox lock while the loop has not
/// withdrawn it (see ``CurlMultiExecutor/Shared/drain()``).
struct WakeupHandle: @unchecked Sendable {
    let multi: UnsafeMutableRawPointer

    func wake() { _ = curl_multi_wakeup(multi) }
}

import CCurl
import Foundation
import Synchronization

/// The loop thread of ``CurlMultiExecutor``: owns the multi handle, the easy handles and every
/// transfer in flight. Never leaves its thread, so it is not `Sendable`.
///
/// At most ``CurlMultiOptions/maxTransfersInFlight`` transfers (every stream of every allowed
/// connection) are in the multi handle at once; later ones wait here, in order. libcurl would
/// queue them too, but it scans that queue on every `curl_multi_remove_handle`, which turns
/// thousands of waiting transfers into quadratic work.
final class CurlMultiLoop {
    private let shared: CurlMultiExecutor.Shared
    private let options: CurlMultiOptions
    private var active: [UnsafeMutableRawPointer: CurlMultiTransfer] = [:]
    private var activeByID: [UInt64: UnsafeMutableRawPointer] = [:]
    /// Transfers not yet in the multi handle, in arrival order (`queueHead` is the next one);
    /// `queued` holds those still waiting, so a cancelled one is found without a scan.
    private var queue: [CurlMultiTransfer] = []
    private var queueHead = 0
    private var queued: [UInt64: CurlMultiTransfer] = [:]
    /// Reset easy handles kept for reuse (allocation is cheap, but not free at 5,000/s).
    private var idle: [UnsafeMutableRawPointer] = []
    private static let maxIdleHandles = 256

    init(shared: CurlMultiExecutor.Shared, options: CurlMultiOptions) {
        self.shared = shared
        self.options = options
    }

    /// Runs until shutdown, then fails whatever is left and frees every handle.
    func run() {
        guard let multi = curl_multi_init() else {
            shared.shutdown()
            for transfer in shared.drain().pending { transfer.complete(.failure(.transfer(code: -1, message: "curl_multi_init failed"))) }
            return
        }
        _ = cg_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        _ = cg_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, max(options.maxConcurrentStreams, 1))
        _ = cg_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(options.maxHostConnections, 1))
        shared.attach(WakeupHandle(multi: multi))

        while true {
            let (pending, cancelled, isShutDown) = shared.drain()
            if isShutDown {
                for transfer in pending { transfer.complete(.failure(.shutDown)) }
                break
            }
            for transfer in pending {
                queue.append(transfer)
                queued[transfer.cancelFlag.id] = transfer
            }
            for id in cancelled { cancel(id, on: multi) }
            startQueued(on: multi)
            var running: Int32 = 0
            _ = curl_multi_perform(multi, &running)
            collectFinished(on: multi)
            startQueued(on: multi)
            // Sleeps until a socket is ready, a libcurl timer is due, or a wakeup arrives.
            _ = curl_multi_poll(multi, nil, 0, 1000, nil)
        }

        for transfer in queued.values { transfer.complete(.failure(.shutDown)) }
        queued.removeAll()
        queue.removeAll()

        for (easy, transfer) in active {
            _ = curl_multi_remove_handle(multi, easy)
            release(transfer)
            transfer.complete(.failure(.shutDown))
        }
        active.removeAll()
        activeByID.removeAll()
        for easy in idle { curl_easy_cleanup(easy) }
        idle.removeAll()
        _ = curl_multi_cleanup(multi)
    }

    // MARK: - Transfers

    private func start(_ transfer: CurlMultiTransfer, on multi: UnsafeMutableRawPointer) {
        guard !transfer.cancelFlag.isCancelled else {
            transfer.complete(.failure(.cancelled))
            return
        }
        guard let easy = idle.popLast() ?? curl_easy_init() else {
            transfer.complete(.failure(.transfer(code: Int(CURLE_OUT_OF_MEMORY.rawValue), message: "curl_easy_init failed")))
            return
        }
        transfer.easy = easy
        let code = configure(easy, for: transfer)
        guard code == CURLE_OK else {
            release(transfer)
            transfer.complete(.failure(.transfer(code: Int(code.rawValue), message: String(cString: curl_easy_strerror(code)))))
            return
        }
        let added = curl_multi_add_handle(multi, easy)
        guard added == CURLM_OK else {
            release(transfer)
            transfer.complete(.failure(.transfer(code: Int(added.rawValue), message: String(cString: curl_multi_strerror(added)))))
            return
        }
        active[easy] = transfer
        activeByID[transfer.cancelFlag.id] = easy
    }

    /// Moves waiting transfers into the multi handle while there is room.
    private func startQueued(on multi: UnsafeMutableRawPointer) {
        let limit = options.maxTransfersInFlight
        while active.count < limit, queueHead < queue.count {
            let transfer = queue[queueHead]
            queueHead += 1
            // Absent when it was cancelled while waiting.
            if queued.removeValue(forKey: transfer.cancelFlag.id) != nil { start(transfer, on: multi) }
        }
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        } else if queueHead >= 1024, queueHead * 2 >= queue.count {
            queue.removeFirst(queueHead)
            queueHead = 0
        }
    }

    private func cancel(_ id: UInt64, on multi: UnsafeMutableRawPointer) {
        if let transfer = queued.removeValue(forKey: id) {
            transfer.complete(.failure(.cancelled))
            return
        }
        guard let easy = activeByID.removeValue(forKey: id), let transfer = active.removeValue(forKey: easy) else { return }
        _ = curl_multi_remove_handle(multi, easy)
        release(transfer)
        transfer.complete(.failure(.cancelled))
    }

    private func collectFinished(on multi: UnsafeMutableRawPointer) {
        // Read every message before removing any handle: a message does not survive
        // curl_multi_remove_handle, and each removal scans the messages still queued.
        var finished: [(easy: UnsafeMutableRawPointer, code: CURLcode)] = []
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            finished.append((easy, message.pointee.data.result))
        }
        for (easy, code) in finished {
            guard let transfer = active.removeValue(forKey: easy) else { continue }
            activeByID[transfer.cancelFlag.id] = nil
            _ = curl_multi_remove_handle(multi, easy)
            let result: Result<CurlMultiResponse, CurlMultiError>
            if transfer.exceededBodyLimit {
                result = .failure(.transfer(code: Int(code.rawValue), message: "response body over \(options.maxResponseBodySize) bytes"))
            } else if code != CURLE_OK {
                result = .failure(.transfer(code: Int(code.rawValue), message: transfer.errorMessage(for: code)))
            } else {
                result = .success(response(of: transfer, easy: easy))
            }
            release(transfer)
            transfer.complete(result)
        }
    }

    private func response(of transfer: CurlMultiTransfer, easy: UnsafeMutableRawPointer) -> CurlMultiResponse {
        var status = 0, version = 0, connects = 0
        _ = cg_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        _ = cg_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
        _ = cg_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects)
        if connects > 0 { shared.connectionsOpened.wrappingAdd(connects, ordering: .relaxed) }
        return CurlMultiResponse(
            status: status, headers: transfer.headers, body: transfer.body, httpVersion: version, newConnections: connects)
    }

    /// Detaches `transfer` from its easy handle (reset drops every pointer into it), frees its
    /// header list, and keeps the handle for reuse.
    private func release(_ transfer: CurlMultiTransfer) {
        guard let easy = transfer.easy else { return }
        curl_easy_reset(easy)
        curl_slist_free_all(transfer.headerList)
        transfer.headerList = nil
        transfer.easy = nil
        if idle.count < Self.maxIdleHandles { idle.append(easy) } else { curl_easy_cleanup(easy) }
    }

    // MARK: - Options

    /// Sets every option of one POST; the first failure is returned.
    private func configure(_ easy: UnsafeMutableRawPointer, for transfer: CurlMultiTransfer) -> CURLcode {
        let request = transfer.request
        var codes: [CURLcode] = [
            cg_setopt_pointer(easy, CURLOPT_ERRORBUFFER, transfer.errorBuffer),
            cg_setopt_long(easy, CURLOPT_NOSIGNAL, 1),
            cg_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "https"),
            cg_setopt_string(easy, CURLOPT_URL, request.url),
            cg_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS)),
            // Wait for a connection being set up to confirm HTTP/2 and multiplex onto it.
            cg_setopt_long(easy, CURLOPT_PIPEWAIT, 1),
            // Security: TLS verification is always on; an extra CA file only adds trust.
            cg_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 1),
            cg_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 2),
            // No proxy, including *_proxy environment variables.
            cg_setopt_string(easy, CURLOPT_PROXY, ""),
            cg_setopt_long(easy, CURLOPT_TCP_KEEPALIVE, 1),
            cg_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, options.connectTimeoutMilliseconds),
            cg_setopt_long(easy, CURLOPT_TIMEOUT_MS, max(request.timeoutMilliseconds, 1)),
            transfer.installCallbacks(on: easy),
        ]
        if let caFile = options.additionalCAFile {
            codes.append(cg_setopt_string(easy, CURLOPT_CAINFO, caFile))
        }
        // COPYPOSTFIELDS copies the bytes; the size goes first or libcurl stops at a NUL.
        codes.append(cg_setopt_offset(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count)))
        codes.append(request.body.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return cg_setopt_string(easy, CURLOPT_COPYPOSTFIELDS, "") }
            return cg_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: base))
        })
        for line in request.headerLines {
            guard let extended = curl_slist_append(transfer.headerList, line) else { return CURLE_OUT_OF_MEMORY }
            transfer.headerList = extended
        }
        codes.append(cg_setopt_slist(easy, CURLOPT_HTTPHEADER, transfer.headerList))
        return codes.first { $0 != CURLE_OK } ?? CURLE_OK
    }
}

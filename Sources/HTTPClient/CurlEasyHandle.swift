import CCurl
import Foundation

/// One libcurl easy handle, owned by one pool thread for the thread's whole life.
///
/// Reusing the handle (with `curl_easy_reset` between transfers) keeps its connection cache,
/// so consecutive requests from the same thread to the same upstream reuse TCP/TLS connections.
/// Not thread-safe, and deliberately not `Sendable`.
final class CurlEasyHandle {
    /// The easy handle; other transfers of this thread (``CurlEasyHandle/performSMTP``) use it too.
    let handle: UnsafeMutableRawPointer
    let errorBuffer: UnsafeMutablePointer<CChar>
    private let errorBufferSize: Int

    /// Returns `nil` if libcurl cannot allocate a handle.
    init?() {
        CurlGlobal.ensureInitialized()
        guard let handle = curl_easy_init() else { return nil }
        self.handle = handle
        self.errorBufferSize = Int(cg_error_size())
        self.errorBuffer = .allocate(capacity: errorBufferSize)
        self.errorBuffer.initialize(repeating: 0, count: errorBufferSize)
    }

    deinit {
        curl_easy_cleanup(handle)
        errorBuffer.deallocate()
    }

    /// Runs `transfer` to completion on the calling thread (blocking), following redirects
    /// hop by hop when the request asks for it (see ``RedirectPolicy``).
    func perform(_ transfer: PreparedTransfer, ticket: TransferTicket<OutboundResponse>) -> Result<OutboundResponse, any Error> {
        // The request's total timeout covers the whole redirect chain.
        let deadline = ContinuousClock.now + .milliseconds(transfer.timeoutMilliseconds)
        var hop = transfer.firstHop
        var redirectsFollowed = 0
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else {
                return .failure(HTTPClientError.timeout(message: "timed out while following redirects"))
            }
            let result = perform(hop, of: transfer, timeoutMilliseconds: PreparedTransfer.milliseconds(remaining), ticket: ticket)
            guard transfer.followRedirects, case .success(let response) = result,
                  RedirectPolicy.followedStatuses.contains(response.status),
                  let location = response.headers["Location"] else {
                return result
            }
            if ticket.isCancelled { return .failure(CancellationError()) }
            guard redirectsFollowed < transfer.maxRedirects else {
                return .failure(HTTPClientError.redirectRejected(
                    reason: "more than \(transfer.maxRedirects) redirects"))
            }
            do {
                hop = try RedirectPolicy.nextHop(after: hop, status: response.status, location: location)
            } catch {
                return .failure(error)
            }
            redirectsFollowed += 1
        }
    }

    /// Performs one request (no redirect following) and returns its response.
    private func perform(
        _ hop: TransferHop, of transfer: PreparedTransfer, timeoutMilliseconds: Int, ticket: TransferTicket<OutboundResponse>
    ) -> Result<OutboundResponse, any Error> {
        curl_easy_reset(handle)
        errorBuffer[0] = 0
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer {
            // Drop every pointer the handle holds into this transfer before freeing them.
            curl_easy_reset(handle)
            curl_slist_free_all(headerList)
        }
        let sink = TransferSink(sizeLimit: transfer.maxResponseBodySize, ticket: ticket)
        let destinationGuard = DestinationGuard(allowList: transfer.allowedDestinations, host: hop.url.host)
        return withExtendedLifetime((sink, destinationGuard)) {
            do {
                headerList = try configure(
                    hop, of: transfer, timeoutMilliseconds: timeoutMilliseconds, sink: sink, destinationGuard: destinationGuard)
            } catch {
                return .failure(error)
            }
            let code = curl_easy_perform(handle)
            if sink.abortedForCancellation || (code != CURLE_OK && ticket.isCancelled) {
                return .failure(CancellationError())
            }
            if sink.exceededSizeLimit {
                return .failure(HTTPClientError.responseTooLarge(limit: transfer.maxResponseBodySize))
            }
            if code == CURLE_COULDNT_CONNECT, let refused = destinationGuard.refused {
                return .failure(HTTPClientError.destinationNotAllowed(address: refused.address, reason: refused.reason))
            }
            guard code == CURLE_OK else {
                return .failure(error(for: code, sizeLimit: transfer.maxResponseBodySize))
            }
            return .success(response(sink: sink))
        }
    }

    // MARK: - Configuration

    /// Sets every option for one hop of `transfer`. Returns the header list, which the caller
    /// must free after the transfer.
    private func configure(
        _ hop: TransferHop, of transfer: PreparedTransfer, timeoutMilliseconds: Int,
        sink: TransferSink, destinationGuard: DestinationGuard
    ) throws(HTTPClientError) -> UnsafeMutablePointer<curl_slist>? {
        try check(cg_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer))
        try check(cg_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
        try check(cg_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"))
        try check(cg_setopt_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"))
        try check(cg_setopt_string(handle, CURLOPT_URL, hop.url.absoluteString))
        // Security: every socket's resolved address is vetted before it connects (SSRF).
        try check(destinationGuard.install(on: handle))

        // Security: TLS verification is always on; extra trust is additive, never a bypass.
        try check(cg_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1))
        try check(cg_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2))
        if let caFile = transfer.additionalCAFile {
            try check(cg_setopt_string(handle, CURLOPT_CAINFO, caFile))
        }
        try check(cg_setopt_long(handle, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS)))
        if !transfer.useEnvironmentProxy {
            // An empty proxy string disables proxies, including *_proxy environment variables.
            try check(cg_setopt_string(handle, CURLOPT_PROXY, ""))
        }

        try check(cg_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, transfer.connectTimeoutMilliseconds))
        try check(cg_setopt_long(handle, CURLOPT_TIMEOUT_MS, timeoutMilliseconds))
        // Redirects are followed by `perform`, hop by hop, never by libcurl.
        try check(cg_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0))
        // Rejects early when Content-Length announces too much; TransferSink enforces it for
        // bodies of unknown length.
        try check(cg_setopt_offset(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(transfer.maxResponseBodySize)))

        if let credentials = transfer.credentials, hop.sendsSecrets {
            // CURLOPT_HTTPAUTH defaults to CURLAUTH_BASIC. Not sent once a redirect has
            // changed origin (`hop.sendsSecrets`).
            try check(cg_setopt_string(handle, CURLOPT_USERNAME, credentials.username))
            try check(cg_setopt_string(handle, CURLOPT_PASSWORD, credentials.password))
        }
        if let userAgent = transfer.userAgent {
            try check(cg_setopt_string(handle, CURLOPT_USERAGENT, userAgent))
        }

        try configureMethodAndBody(hop)
        try check(sink.install(on: handle))

        var list: UnsafeMutablePointer<curl_slist>?
        for line in transfer.headerLines(for: hop) {
            guard let extended = curl_slist_append(list, line) else {
                curl_slist_free_all(list)
                throw .other(code: Int(CURLE_OUT_OF_MEMORY.rawValue), message: "out of memory")
            }
            list = extended
        }
        if let list {
            do {
                try check(cg_setopt_slist(handle, CURLOPT_HTTPHEADER, list))
            } catch {
                curl_slist_free_all(list)
                throw error
            }
        }
        return list
    }

    private func configureMethodAndBody(_ hop: TransferHop) throws(HTTPClientError) {
        let method = hop.method.rawValue
        if let body = hop.body {
            // COPYPOSTFIELDS copies the bytes, so `body` need not outlive this call. The size
            // must be set first, or libcurl would stop at the first NUL byte.
            try check(cg_setopt_offset(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
            let code = body.withUnsafeBytes { bytes -> CURLcode in
                guard let base = bytes.baseAddress, !bytes.isEmpty else {
                    // An empty Data may have no storage; libcurl still needs a valid pointer.
                    return cg_setopt_string(handle, CURLOPT_COPYPOSTFIELDS, "")
                }
                return cg_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: base))
            }
            try check(code)
            if method != "POST" {
                try check(cg_setopt_string(handle, CURLOPT_CUSTOMREQUEST, method))
            }
        } else if method == "GET" {
            try check(cg_setopt_long(handle, CURLOPT_HTTPGET, 1))
        } else if method == "HEAD" {
            try check(cg_setopt_long(handle, CURLOPT_NOBODY, 1))
        } else {
            try check(cg_setopt_string(handle, CURLOPT_CUSTOMREQUEST, method))
        }
    }

    // MARK: - Results

    private func response(sink: TransferSink) -> OutboundResponse {
        var status = 0
        _ = cg_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        var version = 0
        _ = cg_getinfo_long(handle, CURLINFO_HTTP_VERSION, &version)
        var effectiveURL: UnsafeMutablePointer<CChar>?
        _ = cg_getinfo_string(handle, CURLINFO_EFFECTIVE_URL, &effectiveURL)
        return OutboundResponse(
            status: status,
            headers: HTTPHeaderFields(sink.headers),
            body: sink.body,
            httpVersion: Self.httpVersion(fromCurl: version),
            url: effectiveURL.flatMap { URL(string: String(cString: $0)) }
        )
    }

    private static func httpVersion(fromCurl value: Int) -> HTTPVersion {
        switch value {
        case Int(CURL_HTTP_VERSION_1_0): .http1_0
        case Int(CURL_HTTP_VERSION_1_1): .http1_1
        case Int(CURL_HTTP_VERSION_2_0): .http2
        case Int(CURL_HTTP_VERSION_3): .http3
        default: .unknown
        }
    }

    private func error(for code: CURLcode, sizeLimit: Int) -> HTTPClientError {
        let detail = errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
        return HTTPClientError.from(curlCode: code, message: detail, sizeLimit: sizeLimit)
    }

    private func check(_ code: CURLcode) throws(HTTPClientError) {
        guard code == CURLE_OK else {
            throw .other(code: Int(code.rawValue), message: String(cString: curl_easy_strerror(code)))
        }
    }
}

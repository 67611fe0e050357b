import CCurl

/// A transport-level failure of an outbound request.
///
/// HTTP error statuses (4xx, 5xx) are not errors: they come back as an ``OutboundResponse``.
/// Task cancellation is reported as `CancellationError`, not as a case of this enum.
/// Messages never contain credentials, query strings or bodies.
public enum HTTPClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The connect timeout or the request's total timeout elapsed.
    case timeout(message: String)
    /// The host could not be resolved or reached, or the connection broke.
    case connectionFailed(message: String)
    /// The TLS handshake failed, including certificate verification failures.
    case tlsFailure(message: String)
    /// The response body exceeded `limit` bytes; the transfer was aborted.
    case responseTooLarge(limit: Int)
    /// The URL is not an absolute `http`/`https` URL, or libcurl rejected it.
    case invalidURL(reason: String)
    /// The request itself is malformed, e.g. a header containing CR or LF.
    case invalidRequest(reason: String)
    /// The client was shut down before the request could run.
    case shutDown
    /// Every address the host resolved to is restricted (loopback, private, link-local,
    /// unspecified, CGNAT, metadata, …) and not in
    /// ``CurlHTTPClient/Configuration/allowedDestinations``; no connection was made.
    /// `address` is the first address refused, `reason` its class (e.g. `"loopback"`).
    case destinationNotAllowed(address: String, reason: String)
    /// A redirect was not followed: it went from `https` to `http`, to a scheme other than
    /// `http`/`https`, to an unparseable `Location`, or past the redirect limit.
    case redirectRejected(reason: String)
    /// Any other libcurl failure: the raw `CURLcode` and its message.
    case other(code: Int, message: String)

    public var description: String {
        switch self {
        case .timeout(let message): "HTTP request timed out: \(message)"
        case .connectionFailed(let message): "HTTP connection failed: \(message)"
        case .tlsFailure(let message): "TLS failure: \(message)"
        case .responseTooLarge(let limit): "HTTP response body exceeds the limit of \(limit) bytes"
        case .invalidURL(let reason): "Invalid URL: \(reason)"
        case .invalidRequest(let reason): "Invalid request: \(reason)"
        case .shutDown: "HTTP client has been shut down"
        case .destinationNotAllowed(let address, let reason):
            "Destination address \(address) is not allowed (\(reason)); allow-list it in allowedDestinations to connect"
        case .redirectRejected(let reason): "Redirect not followed: \(reason)"
        case .other(let code, let message): "HTTP transfer failed (curl code \(code)): \(message)"
        }
    }
}

extension HTTPClientError {
    /// Maps a failed `CURLcode` to an error. `message` is the best available detail (the
    /// handle's error buffer, or `curl_easy_strerror`).
    ///
    /// Size-limit and cancellation aborts are recognised by the caller, which knows why it
    /// aborted; this function only sees libcurl's view.
    static func from(curlCode code: CURLcode, message: String, sizeLimit: Int) -> HTTPClientError {
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return .timeout(message: message)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT,
             CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE,
             CURLE_HTTP2, CURLE_HTTP2_STREAM:
            return .connectionFailed(message: message)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
             CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR,
             CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE,
             CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED,
             CURLE_SSL_SHUTDOWN_FAILED, CURLE_USE_SSL_FAILED, CURLE_SSL_CLIENTCERT:
            return .tlsFailure(message: message)
        case CURLE_FILESIZE_EXCEEDED:
            return .responseTooLarge(limit: sizeLimit)
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            return .invalidURL(reason: message)
        default:
            return .other(code: Int(code.rawValue), message: message)
        }
    }
}

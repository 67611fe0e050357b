import Foundation

/// One request of a transfer: the original request, or a redirect target being followed.
struct TransferHop: Sendable {
    var url: URL
    var method: HTTPMethod
    var body: Data?
    /// Whether secret headers and Basic credentials are sent. Becomes `false` at the first
    /// redirect that changes origin and stays `false` for the rest of the chain, so a hostile
    /// hop cannot bounce the secrets back to a path of its choosing.
    var sendsSecrets: Bool
    /// Whether the caller's request-body headers (`Content-Type`, …) are sent: `false` once a
    /// redirect turned the request into a `GET` without a body.
    var sendsBodyHeaders: Bool
}

/// Decides whether and how a redirect is followed.
///
/// Redirects are followed here, one `curl_easy_perform` per hop, rather than by libcurl's
/// `CURLOPT_FOLLOWLOCATION`: libcurl would send every custom header to the next host (it only
/// strips `Authorization` and `Cookie`, and only on a host change) and would follow `https` to
/// `http` when both are allowed. Following by hand lets each hop be checked before any byte is
/// sent to it.
enum RedirectPolicy {
    /// Statuses whose `Location` is followed; others (300, 304, …) are returned as they are.
    static let followedStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// Headers describing a request body, dropped when a redirect drops the body.
    static let bodyHeaderNames = [
        "Content-Type", "Content-Length", "Content-Encoding", "Content-Language", "Content-Location",
        "Transfer-Encoding",
    ]

    /// Scheme, host and port: what a redirect must keep for secrets to be sent again.
    struct Origin: Equatable {
        var scheme: String
        var host: String
        var port: Int
    }

    static func origin(of url: URL) -> Origin? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else {
            return nil
        }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return Origin(scheme: scheme, host: host, port: port)
    }

    /// The hop that follows `hop`, which answered `status` with `location`.
    /// - Throws: ``HTTPClientError/redirectRejected(reason:)`` for a target that must not be
    ///   followed. Reasons never contain the URL (it may carry secrets in its query).
    static func nextHop(after hop: TransferHop, status: Int, location: String) throws(HTTPClientError) -> TransferHop {
        guard let target = URL(string: location, relativeTo: hop.url)?.absoluteURL else {
            throw .redirectRejected(reason: "the Location header is not a valid URL")
        }
        guard let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            let shown = target.scheme.map { "\"\($0.prefix(20))\"" } ?? "no"
            throw .redirectRejected(reason: "redirect to a URL with \(shown) scheme; only http and https are allowed")
        }
        guard let from = origin(of: hop.url), let to = origin(of: target) else {
            throw .redirectRejected(reason: "redirect to a URL without a host")
        }
        if from.scheme == "https" && to.scheme == "http" {
            throw .redirectRejected(reason: "redirect from https to http would send the request unencrypted")
        }
        var next = hop
        next.url = target
        if from != to { next.sendsSecrets = false }
        // As browsers and libcurl do: 303 turns anything but HEAD into GET; 301 and 302 turn
        // POST into GET; 307 and 308 keep the method and body.
        let becomesGet = (status == 303 && hop.method != .head)
            || ((status == 301 || status == 302) && hop.method == .post)
        if becomesGet {
            next.method = .get
            next.body = nil
            next.sendsBodyHeaders = false
        }
        return next
    }
}

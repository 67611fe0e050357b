public import Foundation

/// What a Canvas API answer means for the gateway, by Canvas's Throttling and OAuth2 docs:
/// - 403 with "Rate Limit Exceeded" in the body, or 429: throttling, never a bad credential;
/// - 401 with `WWW-Authenticate`: the access token expired or was revoked (OAuth accounts
///   refresh once); a 401 without it is a token Canvas refuses;
/// - any 2xx: an answer, with the quota left (`X-Rate-Limit-Remaining`).
public enum CanvasAnswer: Sendable, Equatable {
    case ok(quotaRemaining: Double?)
    case throttled(retryAfterSeconds: Int)
    case tokenExpired
    case unauthorized
    case failed(status: Int)

    /// Below this much quota left, the gateway slows down before Canvas says no.
    public static let lowQuota = 100.0
    /// How long to wait when Canvas throttles without saying.
    public static let defaultRetryAfter = 30

    public init(status: Int, headers: [String: String], body: Data) {
        func header(_ name: String) -> String? {
            headers.first { $0.key.lowercased() == name }?.value
        }
        let remaining = header("x-rate-limit-remaining").flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        let retryAfter = header("retry-after").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map { min(max($0, 1), 3600) }
        switch status {
        case 200..<300:
            self = .ok(quotaRemaining: remaining)
        case 429:
            self = .throttled(retryAfterSeconds: retryAfter ?? Self.defaultRetryAfter)
        case 403 where String(decoding: body.prefix(4096), as: UTF8.self).localizedCaseInsensitiveContains("rate limit exceeded"):
            self = .throttled(retryAfterSeconds: retryAfter ?? Self.defaultRetryAfter)
        case 401:
            self = header("www-authenticate") != nil ? .tokenExpired : .unauthorized
        default:
            self = .failed(status: status)
        }
    }
}

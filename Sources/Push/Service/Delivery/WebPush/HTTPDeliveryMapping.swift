import Foundation
import HTTPClient
import Logging

/// What Web Push and webhook deliveries share: turning a transport failure or a retryable
/// answer into a ``DeliveryOutcome``. Reasons name statuses and address classes, never URLs'
/// paths, headers or bodies, and never an address: a reason becomes the device's and the
/// notification's `lastError`, which the student reads, and the address a host name resolves
/// to inside the network is the operators' to know (``logRefusal(_:host:logger:)``).
enum HTTPDeliveryMapping {
    /// A failure of `client.execute`: a refused destination or an unusable request is
    /// discarded (trying again cannot help), anything else is retried.
    static func outcome(for error: any Error) -> DeliveryOutcome {
        guard let error = error as? HTTPClientError else {
            return .retry(after: nil, reason: error is CancellationError ? "cancelled before an answer" : "request failed")
        }
        switch error {
        case .destinationNotAllowed(_, let reason):
            return .discarded(reason: "the destination resolves to \(withArticle(reason)) address, which is not allowed")
        case .invalidURL:
            return .discarded(reason: "the destination URL was refused by the HTTP client")
        case .invalidRequest:
            return .discarded(reason: "the request was refused by the HTTP client")
        case .redirectRejected:
            return .discarded(reason: "the destination redirected")
        case .timeout:
            return .retry(after: nil, reason: "timed out")
        case .connectionFailed:
            return .retry(after: nil, reason: "connection failed")
        case .tlsFailure:
            return .retry(after: nil, reason: "TLS failure")
        case .responseTooLarge:
            return .retry(after: nil, reason: "the answer was too large")
        case .shutDown:
            return .retry(after: nil, reason: "the HTTP client is shutting down")
        case .other(let code, _):
            return .retry(after: nil, reason: "transfer failed (curl code \(code))")
        }
    }

    /// `a loopback`, `an unspecified`: an address class with its article.
    static func withArticle(_ addressClass: String) -> String {
        let vowel = addressClass.first.map { "aeiou".contains($0) } ?? false
        return (vowel ? "an " : "a ") + addressClass
    }

    /// Logs a destination the client refused, with the address, for operators (a notice: it is
    /// either a misconfigured device or someone probing the network).
    static func logRefusal(_ error: any Error, host: String?, logger: Logger) {
        guard case .destinationNotAllowed(let address, let reason)? = error as? HTTPClientError else { return }
        logger.notice("destination refused", metadata: ["host": "\(host ?? "?")", "address": "\(address)", "class": "\(reason)"])
    }

    /// A 429 or 5xx answer: retry, after `Retry-After` when given.
    static func retry(_ response: OutboundResponse, now: Date, from peer: String) -> DeliveryOutcome {
        .retry(after: RetryAfter.parse(response.headers["Retry-After"], now: now), reason: "\(peer) answered \(response.status)")
    }

    /// The printable ASCII start of a response body, for a discard reason (push services
    /// explain 400 and 403 there).
    static func snippet(_ body: Data, limit: Int = 120) -> String {
        let text = String(decoding: body.prefix(limit).map { $0 >= 0x20 && $0 < 0x7F ? $0 : UInt8(ascii: " ") }, as: UTF8.self)
        return text.trimmingCharacters(in: .whitespaces)
    }
}

/// An outbound HTTP client: sends one ``OutboundRequest`` and returns its ``OutboundResponse``.
///
/// Feature modules depend on this protocol rather than on a concrete client, so tests can
/// substitute a fake and the production implementation (``CurlHTTPClient``) can change freely.
///
/// Conforming types must be safe to share between tasks.
public protocol HTTPClient: Sendable {
    /// Performs `request` and returns the final response.
    ///
    /// Any HTTP status (including 4xx and 5xx) is a successful result; only transport-level
    /// failures throw.
    ///
    /// - Throws: ``HTTPClientError`` for transport failures, or `CancellationError` when the
    ///   calling task is cancelled before the response has been received.
    func execute(_ request: OutboundRequest) async throws -> OutboundResponse
}

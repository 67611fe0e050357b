import Foundation
import HTTPClient
import Testing

/// A client with small, test-friendly limits so that nothing can hang for long.
///
/// The test servers listen on 127.0.0.1, which the client refuses by default (SSRF guard), so
/// loopback is allow-listed explicitly unless a test passes its own `allowed` list.
func makeClient(
    threads: Int = 2,
    timeout: Duration = .seconds(10),
    maxBody: Int = 10 * 1024 * 1024,
    allowed: DestinationAllowList = .loopback
) -> CurlHTTPClient {
    CurlHTTPClient(configuration: .init(
        threadCount: threads,
        connectTimeout: .seconds(5),
        defaultTimeout: timeout,
        maxResponseBodySize: maxBody,
        allowedDestinations: allowed
    ))
}

func decodeEcho(_ response: OutboundResponse) throws -> EchoPayload {
    try JSONDecoder().decode(EchoPayload.self, from: response.body)
}

/// Runs `operation` and returns its thrown error, failing the test if it did not throw.
func thrownError<T>(_ operation: () async throws -> T) async -> (any Error)? {
    do {
        _ = try await operation()
        Issue.record("expected an error, got a result")
        return nil
    } catch {
        return error
    }
}

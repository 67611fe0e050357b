public import Foundation
public import HTTPClient
import Synchronization

/// Calls upstream gradebooks: through each source's ``SourceGate``, with the caller's
/// credentials, no redirect to another host, and only to the addresses the source may use
/// (public ones; private and loopback too for development sources). Failures become
/// ``GradebookError``s naming the source.
public final class UpstreamTransport: Sendable {
    let publicClient: any HTTPClient
    let developmentClient: any HTTPClient
    let timeout: Duration
    private let gates = Mutex<[Int64: SourceGate]>([:])

    /// `publicClient` must refuse private destinations; `developmentClient` is used only for
    /// sources an admin marked as development sources.
    public init(publicClient: any HTTPClient, developmentClient: any HTTPClient, timeout: Duration = .seconds(10)) {
        self.publicClient = publicClient
        self.developmentClient = developmentClient
        self.timeout = timeout
    }

    func gate(for source: GradebookSource) async -> SourceGate {
        let (gate, created) = gates.withLock { table -> (SourceGate, Bool) in
            if let gate = table[source.id] { return (gate, false) }
            let gate = SourceGate(maxConcurrency: source.maxConcurrency, requestsPerMinute: source.requestsPerMinute)
            table[source.id] = gate
            return (gate, true)
        }
        if !created { await gate.update(maxConcurrency: source.maxConcurrency, requestsPerMinute: source.requestsPerMinute) }
        return gate
    }

    /// Records and probes: at most this many bytes.
    public static let maximumRecordBytes = 8 << 20

    /// GETs `url` of `source` with the credentials. Any HTTP status comes back as a reply;
    /// transport failures throw, and so does a body over `maxBodyBytes` (an upstream failure).
    public func get(
        _ url: URL, source: GradebookSource, credentials: GradebookCredentials, accept: String = "application/json, text/plain",
        maxBodyBytes: Int = UpstreamTransport.maximumRecordBytes
    ) async throws -> UpstreamReply {
        let gate = await gate(for: source)
        if let wait = await gate.enter() {
            throw GradebookError.sourceBusy(sourceID: source.id, name: source.name, retryAfterSeconds: wait)
        }
        let response: OutboundResponse
        do {
            defer { Task { await gate.leave() } }
            let request = OutboundRequest(
                method: .get, url: url, headers: ["Accept": accept], timeout: timeout, followRedirects: false,
                basicCredentials: BasicCredentials(username: credentials.username, password: credentials.password),
                maxResponseBodySize: maxBodyBytes
            )
            response = try await (source.development ? developmentClient : publicClient).execute(request)
        } catch let error as HTTPClientError {
            switch error {
            case .timeout: throw GradebookError.upstreamTimeout(sourceID: source.id, name: source.name)
            case .responseTooLarge: throw GradebookError.upstreamFailed(sourceID: source.id, name: source.name, detail: "the answer was larger than \(Self.mebibytes(maxBodyBytes))")
            case .destinationNotAllowed: throw GradebookError.upstreamFailed(sourceID: source.id, name: source.name, detail: "the source's address is not allowed")
            case .tlsFailure: throw GradebookError.upstreamFailed(sourceID: source.id, name: source.name, detail: "TLS failed")
            default: throw GradebookError.upstreamFailed(sourceID: source.id, name: source.name, detail: "the connection failed")
            }
        }
        if (300..<400).contains(response.status) {
            throw GradebookError.upstreamFailed(sourceID: source.id, name: source.name, detail: "the upstream redirected (not followed)")
        }
        return UpstreamReply(
            status: response.status, contentType: response.headers["Content-Type"], cacheControl: response.headers["Cache-Control"],
            contentDisposition: response.headers["Content-Disposition"], body: response.body
        )
    }

    /// `10 MiB`, or the bytes when not a whole number of MiB.
    static func mebibytes(_ bytes: Int) -> String {
        bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
    }
}

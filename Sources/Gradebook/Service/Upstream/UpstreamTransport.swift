public import Foundation
public import GatewayCore
public import HTTPClient
import Synchronization

/// Calls upstream gradebooks: through each source's ``SourceGate`` (the caller's share of the
/// source), with the caller's credentials, no redirect to another host, and only to the
/// addresses the source may use (public ones; private and loopback too for development
/// sources). Credentials a caller typed are a sign-in at the upstream and pass the sign-in
/// throttle first (``UpstreamCaller``). Failures become ``GradebookError``s naming the source.
public final class UpstreamTransport: Sendable {
    let publicClient: any HTTPClient
    let developmentClient: any HTTPClient
    let timeout: Duration
    /// Wrong upstream passwords, per (source, upstream username) and per client address, as
    /// the gateway's own sign-ins are counted: the gateway is no faster a password oracle than
    /// its own sign-in, and an upstream's lockout never blocks the gateway's address for all.
    public let signIns: LoginThrottle
    /// The time the sign-in throttle counts by (the gateway's clock; tests move it by hand).
    let clock: any GatewayClock
    private let gates = Mutex<[Int64: SourceGate]>([:])

    /// `publicClient` must refuse private destinations; `developmentClient` is used only for
    /// sources an admin marked as development sources.
    public init(
        publicClient: any HTTPClient, developmentClient: any HTTPClient, timeout: Duration = .seconds(10),
        clock: any GatewayClock, signIns: LoginThrottle = LoginThrottle()
    ) {
        self.publicClient = publicClient
        self.developmentClient = developmentClient
        self.timeout = timeout
        self.signIns = signIns
        self.clock = clock
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

    /// GETs `url` of `source` with the credentials, presented as the source's ``GradebookSource/AuthStyle`` says
    /// (the password is the access token for bearer sources, and the `wstoken` parameter added
    /// to the query for Moodle's). Any HTTP status comes back as a reply; transport failures
    /// throw, and so does a body over `maxBodyBytes` (an upstream failure). `refused` says which
    /// reply is a wrong credential for the sign-in throttle (401 unless the protocol says
    /// otherwise: Moodle answers 200 with an error code).
    public func get(
        _ url: URL, source: GradebookSource, credentials: GradebookCredentials, accept: String = "application/json, text/plain",
        maxBodyBytes: Int = UpstreamTransport.maximumRecordBytes, refused: @Sendable (UpstreamReply) -> Bool = { $0.status == 401 }
    ) async throws -> UpstreamReply {
        var request = OutboundRequest(
            method: .get, url: url, headers: ["Accept": accept], timeout: timeout, followRedirects: false, maxResponseBodySize: maxBodyBytes
        )
        switch source.authStyle {
        case .basic: request.basicCredentials = BasicCredentials(username: credentials.username, password: credentials.password)
        case .bearer: request.headers.add(name: "Authorization", value: "Bearer \(credentials.password)")
        case .wstoken: request.url = Self.adding(("wstoken", credentials.password), to: url)
        }
        return try await presenting(request, source: source, credentials: credentials, refused: refused)
    }

    /// `url` with one more query parameter, percent-encoded as a form value (`+` too).
    static func adding(_ parameter: (String, String), to url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        let value = parameter.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
        components.percentEncodedQuery = [components.percentEncodedQuery, "\(parameter.0)=\(value)"].compactMap { $0 }.joined(separator: "&")
        return components.url ?? url
    }

    /// Sends `request` with credentials the caller may have typed: those pass the sign-in
    /// throttle first, and the reply (`refused` or a 2xx) counts for or against them.
    func presenting(
        _ request: OutboundRequest, source: GradebookSource, credentials: GradebookCredentials, refused: @Sendable (UpstreamReply) -> Bool
    ) async throws -> UpstreamReply {
        let caller = credentials.caller
        var attempt: LoginThrottle.Attempt?
        if caller.presentsCredentials {
            switch signIns.begin(username: "\(source.id)\u{0}\(credentials.username)", address: caller.clientAddress, now: clock.now()) {
            case .success(let reserved): attempt = reserved
            case .failure(let throttled):
                throw GradebookError.signInThrottled(sourceID: source.id, name: source.name, retryAfterSeconds: throttled.retryAfterSeconds)
            }
        }
        let response: UpstreamReply
        do {
            response = try await exchange(request, source: source, caller: caller)
        } catch {
            if let attempt { signIns.withdraw(attempt) }
            throw error
        }
        if let attempt {
            // A refusal is a wrong password; any other answer came from credentials the upstream took.
            if refused(response) {
                signIns.failed(attempt, now: clock.now())
            } else if (200..<300).contains(response.status) {
                signIns.succeeded(attempt, now: clock.now())
            } else {
                signIns.withdraw(attempt)
            }
        }
        return response
    }

    /// Sends `request` to `source` through its gate, with the client the source may use (the
    /// SSRF guard), no redirect followed: the token endpoint's POST and DELETE (OAuth2) and
    /// every GET. Transport failures become ``GradebookError``s naming the source.
    func exchange(_ request: OutboundRequest, source: GradebookSource, caller: UpstreamCaller) async throws -> UpstreamReply {
        // A configured source is part of the deployment: its calls join the request's trace.
        var request = request
        request.propagatesTraceContext = true
        let gate = await gate(for: source)
        if let wait = await gate.enter(caller) {
            throw GradebookError.sourceBusy(sourceID: source.id, name: source.name, retryAfterSeconds: wait)
        }
        let response: OutboundResponse
        do {
            defer { Task { await gate.leave(caller) } }
            response = try await (source.development ? developmentClient : publicClient).execute(request)
        } catch let error as HTTPClientError {
            let limit = request.maxResponseBodySize ?? Self.maximumRecordBytes
            switch error {
            case .timeout: throw GradebookError.upstreamTimeout(sourceID: source.id, name: source.name)
            case .responseTooLarge: throw GradebookError.upstreamFailed(sourceID: source.id, name: source.name, detail: "the answer was larger than \(Self.mebibytes(limit))")
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
            contentDisposition: response.headers["Content-Disposition"], body: response.body,
            headers: Dictionary(response.headers.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
        )
    }

    /// `10 MiB`, or the bytes when not a whole number of MiB.
    static func mebibytes(_ bytes: Int) -> String {
        bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
    }
}

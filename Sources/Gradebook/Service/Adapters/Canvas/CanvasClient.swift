import Foundation

/// Reads Canvas's REST API for one student's token, as Canvas documents it:
/// - lists page by `Link: rel="next"`, followed exactly as given and only on the source's own
///   host (the token is never sent anywhere else), at most ``maximumPages`` pages and
///   ``maximumBytes`` bytes a list;
/// - throttling (403 "Rate Limit Exceeded", 429) is ``GradebookError/upstreamThrottled``, never a
///   bad credential; with little quota left (`X-Rate-Limit-Remaining`) it pauses before the
///   next request rather than wait for Canvas to say no;
/// - a refused or expired token is ``GradebookError/upstreamUnauthorized``.
struct CanvasClient: Sendable {
    let transport: UpstreamTransport
    /// How long to pause before a request when the quota left is low.
    let lowQuotaPause: Duration

    init(transport: UpstreamTransport, lowQuotaPause: Duration = .milliseconds(500)) {
        self.transport = transport
        self.lowQuotaPause = lowQuotaPause
    }

    /// The most pages one list is read over, and the most bytes in all.
    static let maximumPages = 50
    static let maximumBytes = 8 << 20
    /// What a list asks per page; Canvas may answer fewer.
    static let pageSize = "100"

    /// One object (`/api/v1/users/self`).
    func object<T: Decodable>(_ type: T.Type, _ path: String, query: [(String, String)] = [], _ credentials: GradebookCredentials, source: GradebookSource) async throws -> T {
        let (body, _) = try await page(source.canvas(path, query: query), credentials, source: source, maxBytes: Self.maximumBytes)
        return try decode(type, body, source: source)
    }

    /// Every item of a list, over all its pages.
    func list<T: Decodable>(_ type: T.Type, _ path: String, query: [(String, String)] = [], _ credentials: GradebookCredentials, source: GradebookSource) async throws -> [T] {
        var next: URL? = source.canvas(path, query: query + [("per_page", Self.pageSize)])
        var items: [T] = []
        var pages = 0, bytes = 0
        while let url = next {
            guard CanvasPageLinks.sameOrigin(url, as: source.baseURL) else {
                throw GradebookError.upstreamFailed(sourceID: source.id, name: source.name, detail: "Canvas linked the next page to another host (not followed)")
            }
            guard pages < Self.maximumPages else {
                throw GradebookError.upstreamFailed(sourceID: source.id, name: source.name, detail: "the list runs past \(Self.maximumPages) pages")
            }
            let (body, links) = try await page(url, credentials, source: source, maxBytes: Self.maximumBytes - bytes)
            pages += 1
            bytes += body.count
            items += try decode([T].self, body, source: source)
            next = links.next
        }
        return items
    }

    /// One GET, its answer read as Canvas's throttling and OAuth docs say.
    func page(_ url: URL, _ credentials: GradebookCredentials, source: GradebookSource, maxBytes: Int) async throws -> (Data, CanvasPageLinks) {
        guard maxBytes > 0 else {
            throw GradebookError.upstreamFailed(sourceID: source.id, name: source.name, detail: "the list is larger than \(Self.maximumBytes) bytes")
        }
        let reply = try await transport.get(url, source: source, credentials: credentials, accept: "application/json", maxBodyBytes: maxBytes)
        switch CanvasAnswer(status: reply.status, headers: reply.headers, body: reply.body) {
        case .ok(let quota):
            if let quota, quota < CanvasAnswer.lowQuota { try? await Task.sleep(for: lowQuotaPause) }
            return (reply.body, CanvasPageLinks(header: reply.headers["link"]))
        case .throttled(let seconds):
            throw GradebookError.upstreamThrottled(sourceID: source.id, name: source.name, retryAfterSeconds: seconds)
        case .tokenExpired:
            throw GradebookError.upstreamTokenExpired(sourceID: source.id, name: source.name)
        case .unauthorized:
            throw GradebookError.upstreamUnauthorized(sourceID: source.id, name: source.name)
        case .failed(let status):
            if status == 504 { throw GradebookError.upstreamTimeout(sourceID: source.id, name: source.name) }
            throw GradebookError.upstreamFailed(sourceID: source.id, name: source.name, detail: "Canvas answered \(status)")
        }
    }

    func decode<T: Decodable>(_ type: T.Type, _ body: Data, source: GradebookSource) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: body)
        } catch {
            throw GradebookError.upstreamFailed(sourceID: source.id, name: source.name, detail: "Canvas's answer is not the documented JSON")
        }
    }
}

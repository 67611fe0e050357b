import Foundation

/// The raw Cal Poly exchanges, cached per user: the login probe and records. Only complete,
/// well-formed 200 answers are cached; `refresh` bypasses (and then refills) the cache.
public final class CachedUpstream: Sendable {
    let transport: UpstreamTransport
    let cache: ReplyCache

    /// `cacheLifetime` zero turns caching off.
    public init(transport: UpstreamTransport, cacheLifetime: Duration = .seconds(30)) {
        self.transport = transport
        self.cache = ReplyCache(lifetime: cacheLifetime)
    }

    /// `GET auth.txt` beside the base URL. Never cached (it is the credential check).
    public func probe(_ credentials: GradebookCredentials, source: GradebookSource) async throws -> UpstreamReply {
        try await transport.get(source.sibling("auth.txt"), source: source, credentials: credentials)
    }

    /// `GET file_download?...` beside the base URL, at most `maxBytes`. Never cached (files are
    /// `no-store` at the gateway, and each one is asked for once).
    public func file(_ query: FileDownloadQuery, _ credentials: GradebookCredentials, source: GradebookSource, maxBytes: Int) async throws -> UpstreamReply {
        try await transport.get(query.upstreamURL(source), source: source, credentials: credentials, accept: "*/*", maxBodyBytes: maxBytes)
    }

    /// `GET grades.json?...`; a 200 whose body is not JSON is a failure (never passed on).
    public func record(_ query: [(String, String)], _ credentials: GradebookCredentials, source: GradebookSource, refresh: Bool) async throws -> UpstreamReply {
        let url = source.record(query)
        let key = ReplyCache.key(source: source.id, credentials: credentials, request: url.absoluteString)
        if !refresh, let cached = cache.reply(for: key) { return cached }
        let reply = try await transport.get(url, source: source, credentials: credentials)
        if reply.status == 200 {
            guard (try? JSONSerialization.jsonObject(with: reply.body, options: [.fragmentsAllowed])) != nil else {
                throw GradebookError.upstreamFailed(sourceID: source.id, name: source.name, detail: "the answer is not JSON")
            }
            cache.store(reply, for: key)
        }
        return reply
    }
}

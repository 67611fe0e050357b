public import Foundation
public import GatewayCore
public import Storage

/// Reading gradebooks: the compatibility pass-through and the normalised drill-down, with
/// credentials from the request or from the caller's stored account.
public final class GradebookService: Sendable {
    let sources: GradebookSourceService
    let upstream: CachedUpstream
    let accounts: GradebookAccountService
    let adapters: [GradebookSource.Kind: any GradebookAdapter]
    /// The largest upstream file passed through (``FileDelivery/defaultMaximumBytes``).
    public let maxFileBytes: Int

    public init(
        sources: GradebookSourceService, upstream: CachedUpstream, accounts: GradebookAccountService,
        maxFileBytes: Int = FileDelivery.defaultMaximumBytes
    ) {
        self.sources = sources
        self.upstream = upstream
        self.accounts = accounts
        self.maxFileBytes = maxFileBytes
        self.adapters = Dictionary(uniqueKeysWithValues: GradebookSource.Kind.allCases.map { ($0, Self.adapter(for: $0, upstream: upstream)) })
    }

    /// The adapter for a source's kind.
    public func adapter(for source: GradebookSource) -> any GradebookAdapter {
        adapters[source.kind] ?? Self.adapter(for: source.kind, upstream: upstream)
    }

    /// The adapter that speaks `kind`, over `upstream`'s transport.
    public static func adapter(for kind: GradebookSource.Kind, upstream: CachedUpstream) -> any GradebookAdapter {
        switch kind {
        case .calpoly: CalPolyAdapter(upstream: upstream)
        case .canvas: CanvasAdapter(transport: upstream.transport)
        case .moodle: MoodleAdapter(transport: upstream.transport)
        }
    }

    /// A source that speaks the Cal Poly protocol: the compatibility routes and files know no
    /// other, and to them another kind's source is no gradebook at all.
    func calPolySource(id: Int64) async throws -> GradebookSource {
        let source = try await sources.source(id: id)
        guard source.kind == .calpoly else { throw GradebookError.sourceNotFound("\(id)") }
        return source
    }

    // MARK: Compatibility (Cal Poly sources only)

    /// `grades.json?<query>` as the upstream answered it (status and bytes), except that with
    /// `fileLinks` the `url` of each file object naming the source's `file_download` becomes
    /// `<fileLinks>?<query>` (``FileLinkRewriter``).
    public func passThrough(
        sourceID: Int64, query: [(String, String)], credentials: GradebookCredentials, refresh: Bool, fileLinks: String? = nil
    ) async throws -> UpstreamReply {
        let source = try await calPolySource(id: sourceID)
        var reply = try await upstream.record(query, credentials, source: source, refresh: refresh)
        if let fileLinks, reply.status == 200 {
            reply.body = FileLinkRewriter.rewrite(reply.body) { url in
                FileDownloadQuery(linkedFrom: url, source: source).map { "\(fileLinks)?\($0.encoded)" }
            }
        }
        return reply
    }

    /// A file the source serves (`file_download?<query>` beside its base URL), as the upstream
    /// answered it; more than ``maxFileBytes`` is an upstream failure. Never cached.
    public func file(sourceID: Int64, query: FileDownloadQuery, _ from: CredentialSource) async throws -> UpstreamReply {
        let (source, credentials) = try await resolve(sourceID, from)
        guard source.kind == .calpoly else { throw GradebookError.notSpokenBySource(sourceID: source.id, name: source.name, kind: source.kind.rawValue) }
        return try await upstream.file(query, credentials, source: source, maxBytes: maxFileBytes)
    }

    /// `auth.txt` as the upstream answered it.
    public func probe(sourceID: Int64, credentials: GradebookCredentials) async throws -> UpstreamReply {
        let source = try await calPolySource(id: sourceID)
        return try await upstream.probe(credentials, source: source)
    }

    // MARK: Normalised drill-down

    /// Where credentials come from for one v1 request.
    public enum CredentialSource: Sendable {
        /// HTTP Basic on the request: the upstream's own username and password.
        case request(GradebookCredentials)
        /// A stored account of the signed-in student (`account` nil: their only one for the source).
        case stored(accountID: Int64, gradebookAccount: Int64?)
    }

    public func sections(sourceID: Int64, _ from: CredentialSource, refresh: Bool) async throws -> [GradebookSection] {
        let (source, credentials) = try await resolve(sourceID, from)
        return try await adapter(for: source).sections(credentials, source: source, refresh: refresh)
    }

    public func enrollments(sourceID: Int64, term: Int64, course: String, _ from: CredentialSource, refresh: Bool) async throws -> [GradebookEnrollment] {
        let (source, credentials) = try await resolve(sourceID, from)
        return try await adapter(for: source).enrollments(term: term, course: course, credentials, source: source, refresh: refresh)
    }

    public func assignments(sourceID: Int64, term: Int64, course: String, user: String, _ from: CredentialSource, refresh: Bool) async throws -> [GradebookAssignment] {
        let (source, credentials) = try await resolve(sourceID, from)
        return try await adapter(for: source).assignments(term: term, course: course, user: user, credentials, source: source, refresh: refresh)
    }

    public func assignmentStats(sourceID: Int64, term: Int64, course: String, assignment: Int64, _ from: CredentialSource, refresh: Bool) async throws -> GradebookAssignmentStats {
        let (source, credentials) = try await resolve(sourceID, from)
        return try await adapter(for: source).assignmentStats(term: term, course: course, assignment: assignment, credentials, source: source, refresh: refresh)
    }

    func resolve(_ sourceID: Int64, _ from: CredentialSource) async throws -> (GradebookSource, GradebookCredentials) {
        let source = try await sources.source(id: sourceID)
        switch from {
        case .request(let credentials):
            return (source, credentials)
        case .stored(let accountID, let chosen):
            let stored = try await accounts.credentials(accountID: accountID, sourceID: sourceID, gradebookAccount: chosen)
            return (source, stored.presented(by: .student(accountID: accountID)))
        }
    }
}

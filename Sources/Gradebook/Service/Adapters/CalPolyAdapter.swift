import Foundation

/// The Cal Poly gradebook protocol (`../shared/design/GRADEBOOK_PROTOCOL.md`): `auth.txt`
/// login probe and `grades.json?record=...` over HTTP Basic. It also serves the compatibility
/// route's raw pass-through, through the same cache and gate.
public struct CalPolyAdapter: GradebookAdapter {
    let upstream: CachedUpstream

    public init(upstream: CachedUpstream) {
        self.upstream = upstream
    }

    /// The login probe; the owner's name is the username they typed.
    @discardableResult
    public func verify(_ credentials: GradebookCredentials, source: GradebookSource) async throws -> String {
        let reply = try await upstream.probe(credentials, source: source)
        guard reply.status == 200, reply.body == Data("access\n".utf8) else {
            if reply.status == 200 || reply.status == 401 || reply.status == 403 {
                throw GradebookError.upstreamUnauthorized(sourceID: source.id, name: source.name)
            }
            throw Self.failure(reply, source: source)
        }
        return credentials.username
    }

    /// The sections the account sees, each with the account's own assignments (a section
    /// the upstream refuses them is not theirs and is left out).
    public func courseGrades(_ credentials: GradebookCredentials, source: GradebookSource, refresh: Bool) async throws -> [CourseGrades] {
        try await ownSections(credentials, source: source, refresh: refresh).map { CalPolyGrades.course($0.section, assignments: $0.assignments) }
    }

    /// The account's sections and, for each, its own assignments and scores.
    public func ownSections(
        _ credentials: GradebookCredentials, source: GradebookSource, refresh: Bool
    ) async throws -> [(section: GradebookSection, assignments: [GradebookAssignment])] {
        var fetched: [(section: GradebookSection, assignments: [GradebookAssignment])] = []
        for section in try await sections(credentials, source: source, refresh: refresh) {
            do {
                let assignments = try await assignments(
                    term: section.term, course: section.course, user: credentials.username, credentials, source: source, refresh: refresh
                )
                fetched.append((section, assignments))
            } catch GradebookError.permissionDenied {
                continue // the student is not in this section
            }
        }
        return fetched
    }

    public func sections(_ credentials: GradebookCredentials, source: GradebookSource, refresh: Bool) async throws -> [GradebookSection] {
        try await decode(["record": "sections"], credentials, source, refresh, CalPolyFormat.sections)
    }

    public func enrollments(term: Int64, course: String, _ credentials: GradebookCredentials, source: GradebookSource, refresh: Bool) async throws -> [GradebookEnrollment] {
        try await decode(["record": "enrollments", "term": String(term), "course": course], credentials, source, refresh, CalPolyFormat.enrollments)
    }

    public func assignments(term: Int64, course: String, user: String, _ credentials: GradebookCredentials, source: GradebookSource, refresh: Bool) async throws -> [GradebookAssignment] {
        try await decode(
            ["record": "userscores", "term": String(term), "course": course, "user": user], credentials, source, refresh, CalPolyFormat.userScores
        ).sorted { ($0.sortOrder, $0.id) < ($1.sortOrder, $1.id) }
    }

    public func assignmentStats(term: Int64, course: String, assignment: Int64, _ credentials: GradebookCredentials, source: GradebookSource, refresh: Bool) async throws -> GradebookAssignmentStats {
        try await decode(
            ["record": "asnstats", "term": String(term), "course": course, "id": String(assignment)], credentials, source, refresh,
            CalPolyFormat.assignmentStats
        )
    }

    private func decode<T>(
        _ query: KeyValuePairs<String, String>, _ credentials: GradebookCredentials, _ source: GradebookSource, _ refresh: Bool,
        _ parse: (Data) throws(CalPolyFormat.Refusal) -> T
    ) async throws -> T {
        let reply = try await upstream.record(query.map { ($0.key, $0.value) }, credentials, source: source, refresh: refresh)
        guard reply.status == 200 else { throw Self.failure(reply, source: source) }
        do {
            return try parse(reply.body)
        } catch .permission {
            throw GradebookError.permissionDenied(sourceID: source.id, name: source.name)
        } catch .malformed(let detail) {
            throw GradebookError.upstreamFailed(sourceID: source.id, name: source.name, detail: detail)
        }
    }

    /// The error for a non-200 answer.
    static func failure(_ reply: UpstreamReply, source: GradebookSource) -> GradebookError {
        switch reply.status {
        case 401, 403: .upstreamUnauthorized(sourceID: source.id, name: source.name)
        case 504: .upstreamTimeout(sourceID: source.id, name: source.name)
        default: .upstreamFailed(sourceID: source.id, name: source.name, detail: "the upstream answered \(reply.status)")
        }
    }
}

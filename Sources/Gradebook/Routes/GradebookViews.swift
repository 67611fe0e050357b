import Foundation

/// The v1 JSON shapes of gradebooks.
enum GradebookViews {
    struct Source: Encodable {
        let id: Int64
        let name: String
        let kind: String
        let baseUrl: String
        let authStyle: String
        let pollIntervalSeconds: Int
        let maxConcurrency: Int
        let requestsPerMinute: Int
        let development: Bool
        /// A canvas source's developer key id; omitted when it has none.
        let oauthClientId: String?
        /// Whether its secret is stored (the secret itself is never answered).
        let oauthClientSecretSet: Bool
        /// A moodle source's web service; omitted for other kinds.
        let service: String?
        let health: Health

        /// How polls of the source are going (operators: is it up, are we backing off).
        struct Health: Encodable {
            let state: String
            let consecutiveFailures: Int
            let polls: Int
            let failures: Int
            let lastSuccessAt: Date?
            let lastFailureAt: Date?
            let lastError: String?
            let backoffUntil: Date?
        }

        init(_ source: GradebookSource, hasClientSecret: Bool, health: SourceHealth? = nil, now: Date = Date()) {
            oauthClientId = source.oauthClientID
            oauthClientSecretSet = hasClientSecret
            service = source.moodleService
            id = source.id
            name = source.name
            kind = source.kind.rawValue
            baseUrl = source.baseURL.absoluteString
            authStyle = source.authStyle.rawValue
            pollIntervalSeconds = source.pollIntervalSeconds
            maxConcurrency = source.maxConcurrency
            requestsPerMinute = source.requestsPerMinute
            development = source.development
            let known = health ?? SourceHealth(sourceID: source.id)
            self.health = Health(
                state: known.state(at: now).rawValue, consecutiveFailures: known.consecutiveFailures, polls: known.polls, failures: known.failures,
                lastSuccessAt: known.lastSuccessAt, lastFailureAt: known.lastFailureAt, lastError: known.lastError,
                backoffUntil: known.backoffUntil.flatMap { $0 > now ? $0 : nil }
            )
        }
    }

    /// What anyone may know about a source (no URL, no limits).
    struct PublicSource: Encodable {
        let id: Int64
        let name: String
        let kind: String
        /// Students can connect it with OAuth2.
        let oauth: Bool
    }

    struct Section: Encodable {
        let id: Int64
        let term: Int64
        let termName: String
        let department: String
        let course: String
        let title: String
        let polynum: Int64
        let firstDay: Date?
        let lastDay: Date?

        init(_ section: GradebookSection) {
            id = section.id
            term = section.term
            termName = section.termName
            department = section.department
            course = section.course
            title = section.title
            polynum = section.polynum
            firstDay = section.firstDay
            lastDay = section.lastDay
        }
    }

    struct Enrollment: Encodable {
        let id: Int64
        let username: String
        let firstName: String
        let lastName: String
        let role: Int
        let dropped: Bool
        let major: String
        let pictureUrl: String?

        init(_ enrollment: GradebookEnrollment, links: FileLinks) {
            id = enrollment.id
            username = enrollment.username
            firstName = enrollment.firstName
            lastName = enrollment.lastName
            role = enrollment.role
            dropped = enrollment.dropped
            major = enrollment.major
            pictureUrl = links.link(enrollment.pictureURL)
        }
    }

    struct Assignment: Encodable {
        let id: Int64
        let name: String
        let abbreviatedName: String
        let maxPoints: Double?
        let dueAt: Date?
        let sortOrder: Int
        let extraCreditAllowed: Bool
        /// The score that counts first, then the others newest first.
        let scores: [Score]

        init(_ assignment: GradebookAssignment, links: FileLinks) {
            id = assignment.id
            name = assignment.name
            abbreviatedName = assignment.abbreviatedName
            maxPoints = assignment.maxPoints
            dueAt = assignment.dueAt
            sortOrder = assignment.sortOrder
            extraCreditAllowed = assignment.extraCreditAllowed
            scores = assignment.scores.map { Score($0, maxPoints: assignment.maxPoints, links: links) }
        }
    }

    struct Score: Encodable {
        let id: Int64
        let displayScore: String
        let points: Double?
        let maxPoints: Double?
        let counts: Bool
        let postedAt: Date?
        let feedbackUrl: String?
        let submittedWorkUrl: String?

        init(_ score: GradebookScore, maxPoints: Double?, links: FileLinks) {
            id = score.id
            displayScore = score.displayScore
            points = score.points
            self.maxPoints = maxPoints
            counts = score.counts
            postedAt = score.postedAt
            feedbackUrl = links.link(score.feedback?.url)
            submittedWorkUrl = links.link(score.submittedWork?.url)
        }
    }

    struct Stats: Encodable {
        let id: Int64
        let points: Double?
        let minScore: Double?
        let maxScore: Double?
        let meanScore: Double?
        let medianScore: Double?
        let standardDeviation: Double?
        let attempts: Int
        let uniqueStudents: Int

        init(_ stats: GradebookAssignmentStats) {
            id = stats.id
            points = stats.points
            minScore = stats.minScore
            maxScore = stats.maxScore
            meanScore = stats.meanScore
            medianScore = stats.medianScore
            standardDeviation = stats.standardDeviation
            attempts = stats.attempts
            uniqueStudents = stats.uniqueStudents
        }
    }

    struct Account: Encodable {
        let id: Int64
        let sourceId: Int64
        let username: String
        let createdAt: Date
        let status: String

        init(_ account: GradebookAccountInfo) {
            id = account.id
            sourceId = account.sourceID
            username = account.username
            createdAt = account.createdAt
            status = account.status.rawValue
        }
    }

    /// File links of the v1 views: an upstream `file_download` link of the source becomes
    /// `/v1/gradebook/{sourceId}/file_download?<its query>` (with `account=` when the caller
    /// picked a stored account), served with the caller's credentials; any other link is nil.
    struct FileLinks {
        let source: GradebookSource
        let account: Int64?

        func link(_ upstream: String?) -> String? {
            guard let upstream, let query = FileDownloadQuery(linkedFrom: upstream, source: source) else { return nil }
            var link = "/v1/gradebook/\(source.id)/file_download?\(query.encoded)"
            // `account` is the gateway's own parameter: a link whose query has one can't be served.
            guard query.value("account") == nil, query.value("refresh") == nil else { return nil }
            if let account { link += "&account=\(account)" }
            return link
        }
    }
}

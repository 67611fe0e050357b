public import Foundation

/// An upstream gradebook an admin registered. Its numeric id is also the QuickHAC "district".
/// Users never supply an upstream URL: they pick a source by id.
public struct GradebookSource: Sendable, Equatable {
    /// Which protocol the upstream speaks; each kind has an adapter.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// The Cal Poly gradebook (`grades.json?record=...`, `auth.txt`, HTTP Basic).
        case calpoly
        /// A Canvas LMS host: its REST API (`/api/v1/...`) with a student's bearer token.
        case canvas
        /// A Moodle site: its Web Services REST API (`/webservice/rest/server.php`) with a
        /// student's web-service token as `wstoken`.
        case moodle

        /// How a source of this kind takes credentials unless an admin says otherwise.
        public var defaultAuthStyle: AuthStyle {
            switch self {
            case .calpoly: .basic
            case .canvas: .bearer
            case .moodle: .wstoken
            }
        }
    }

    /// How the caller's credentials reach the upstream.
    public enum AuthStyle: String, Sendable, Codable, CaseIterable {
        /// HTTP Basic with the student's gradebook username and password.
        case basic
        /// `Authorization: Bearer` with the student's access token (Canvas).
        case bearer
        /// The student's web-service token as the `wstoken` query parameter (Moodle): a secret
        /// in a URL, which the HTTP client never writes anywhere.
        case wstoken
    }

    /// The Moodle service a student's username and password are exchanged for a token of, when
    /// the source names none.
    public static let defaultMoodleService = "moodle_mobile_app"


    public var id: Int64
    public var name: String
    public var kind: Kind
    /// The protocol's base URL (`https://users.csc.calpoly.edu/~bellardo/cgi-bin/grades.json`).
    public var baseURL: URL
    public var authStyle: AuthStyle
    /// How often Push polls each linked account, in seconds.
    public var pollIntervalSeconds: Int
    /// At most this many requests to the upstream at once.
    public var maxConcurrency: Int
    /// At most this many requests to the upstream per minute.
    public var requestsPerMinute: Int
    /// A development source may use plain http and private or loopback addresses (the
    /// simulator); others must be https on public addresses.
    public var development: Bool
    /// The campus's Canvas developer key id (`client_id`), for the OAuth2 flow; its secret is
    /// sealed apart and never part of this value.
    public var oauthClientID: String?
    /// A Moodle source's web service (`service` at `login/token.php`); nil for other kinds.
    public var moodleService: String?

    public init(
        id: Int64, name: String, kind: Kind = .calpoly, baseURL: URL, authStyle: AuthStyle = .basic, pollIntervalSeconds: Int = 900,
        maxConcurrency: Int = 4, requestsPerMinute: Int = 120, development: Bool = false, oauthClientID: String? = nil,
        moodleService: String? = nil
    ) {
        self.oauthClientID = oauthClientID
        self.moodleService = moodleService
        self.id = id
        self.name = name
        self.kind = kind
        self.baseURL = baseURL
        self.authStyle = authStyle
        self.pollIntervalSeconds = pollIntervalSeconds
        self.maxConcurrency = maxConcurrency
        self.requestsPerMinute = requestsPerMinute
        self.development = development
    }

    /// A URL beside the base (`auth.txt` for `.../cgi-bin/grades.json` is `.../cgi-bin/auth.txt`).
    public func sibling(_ name: String) -> URL {
        baseURL.deletingLastPathComponent().appendingPathComponent(name)
    }

    /// A Canvas API address under the source's base (`/api/v1/courses` with its query; a base
    /// with a path, a Canvas behind a proxy's prefix, keeps it in front).
    public func canvas(_ path: String, query: [(String, String)] = []) -> URL {
        var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) ?? URLComponents()
        let prefix = components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path
        components.path = prefix + path
        components.queryItems = query.isEmpty ? nil : query.map { URLQueryItem(name: $0.0, value: $0.1) }
        return components.url ?? baseURL
    }

    /// A Moodle address under the site's base (`/login/token.php`, `/webservice/rest/server.php`
    /// with its query; a site under a path, `https://campus.edu/moodle`, keeps it in front).
    public func moodle(_ path: String, query: [(String, String)] = []) -> URL { canvas(path, query: query) }

    /// The base URL with a query (`?record=sections`), replacing any query it had.
    public func record(_ query: [(String, String)]) -> URL {
        var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) ?? URLComponents()
        components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) }
        return components.url ?? baseURL
    }
}

/// Why a source definition was refused, naming the field.
public struct SourceProblem: Error, Sendable, Equatable {
    public let field: String
    public let reason: String
    public init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }
}

extension GradebookSource {
    /// Checks the definition; the first problem names its field.
    public func validate() throws(SourceProblem) {
        guard (1...2_147_483_647).contains(id) else { throw SourceProblem(field: "id", reason: "must be 1 to 2147483647") }
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, name.count <= 100 else { throw SourceProblem(field: "name", reason: "must be 1 to 100 characters") }
        guard let components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false),
              let scheme = components.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = components.host, !host.isEmpty else {
            throw SourceProblem(field: "baseUrl", reason: "must be an absolute http or https URL")
        }
        guard baseURL.absoluteString.utf8.count <= 2048 else { throw SourceProblem(field: "baseUrl", reason: "at most 2048 characters") }
        guard components.user == nil, components.password == nil else {
            throw SourceProblem(field: "baseUrl", reason: "must not carry credentials")
        }
        guard components.query == nil, components.fragment == nil else {
            throw SourceProblem(field: "baseUrl", reason: "must not have a query or fragment (records add their own query)")
        }
        switch kind {
        case .calpoly:
            guard authStyle == .basic else { throw SourceProblem(field: "authStyle", reason: "must be basic for a calpoly source") }
        case .canvas:
            guard authStyle == .bearer else { throw SourceProblem(field: "authStyle", reason: "must be bearer for a canvas source") }
            guard !components.path.contains("/api/") else {
                throw SourceProblem(field: "baseUrl", reason: "must be the Canvas host (https://canvas.example.edu), not an API address")
            }
        case .moodle:
            guard authStyle == .wstoken else { throw SourceProblem(field: "authStyle", reason: "must be wstoken for a moodle source") }
            guard !components.path.contains("/webservice/"), !components.path.contains("/login/") else {
                throw SourceProblem(field: "baseUrl", reason: "must be the Moodle site (https://moodle.example.edu), not a web service address")
            }
        }
        if let moodleService {
            guard kind == .moodle else { throw SourceProblem(field: "service", reason: "is for moodle sources only") }
            guard (1...100).contains(moodleService.utf8.count),
                  moodleService.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-") }) else {
                throw SourceProblem(field: "service", reason: "must be 1 to 100 letters, digits, '_' or '-' (a service's short name)")
            }
        }
        guard scheme == "https" || development else {
            throw SourceProblem(field: "baseUrl", reason: "must be https unless the source is marked as a development source")
        }
        guard (60...86_400).contains(pollIntervalSeconds) else {
            throw SourceProblem(field: "pollIntervalSeconds", reason: "must be 60 to 86400")
        }
        guard (1...64).contains(maxConcurrency) else { throw SourceProblem(field: "maxConcurrency", reason: "must be 1 to 64") }
        guard (1...1_000_000).contains(requestsPerMinute) else { throw SourceProblem(field: "requestsPerMinute", reason: "must be 1 to 1000000") }
        if let oauthClientID {
            guard kind == .canvas else { throw SourceProblem(field: "oauthClientId", reason: "is for canvas sources only") }
            guard (1...200).contains(oauthClientID.utf8.count), oauthClientID.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
                throw SourceProblem(field: "oauthClientId", reason: "must be 1 to 200 visible ASCII characters")
            }
        }
    }
}

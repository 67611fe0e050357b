public import Foundation

/// The query of a Cal Poly `file_download` request (`file=32550&enrollment=858&name=file&term=2152&course=458`),
/// checked. Only this form is fetched from an upstream: the path is always the source's own
/// `file_download` beside its base URL (``GradebookSource/fileDownloadURL``), never a path a
/// record or a caller supplies; only the query passes, bounded and without `..`.
public struct FileDownloadQuery: Sendable, Equatable {
    /// One `name=value` pair, in the order given.
    public struct Item: Sendable, Equatable {
        public var name: String
        public var value: String
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public let items: [Item]

    /// At most this many parameters, and this many bytes encoded.
    public static let maximumItems = 16
    public static let maximumEncodedBytes = 1024

    /// Why a query was refused.
    public struct Refusal: Error, Sendable, Equatable {
        public let reason: String
    }

    /// Checks the parameters: 1 to 16 of them, `file` among them, names of letters, digits and
    /// `_` (at most 32), values of at most 256 bytes without control characters or `..`, and at
    /// most 1024 bytes once encoded.
    public init(_ pairs: [(String, String)]) throws(Refusal) {
        guard !pairs.isEmpty, pairs.count <= Self.maximumItems else { throw Refusal(reason: "1 to \(Self.maximumItems) query parameters") }
        var items: [Item] = []
        for (name, value) in pairs {
            guard !name.isEmpty, name.utf8.count <= 32, name.unicodeScalars.allSatisfy(Self.isNameCharacter) else {
                throw Refusal(reason: "parameter names are letters, digits and _")
            }
            guard value.utf8.count <= 256, !value.contains(".."), !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw Refusal(reason: "parameter \(name) is not a plain value")
            }
            items.append(Item(name: name, value: value))
        }
        guard items.contains(where: { $0.name == "file" }) else { throw Refusal(reason: "the file parameter is missing") }
        self.items = items
        guard encoded.utf8.count <= Self.maximumEncodedBytes else { throw Refusal(reason: "the query is too long") }
    }

    /// The query of `url` when it names `source`'s own `file_download` (resolved against the
    /// base URL: same scheme, host and port, that exact path, no `..`); nil otherwise.
    public init?(linkedFrom url: String, source: GradebookSource) {
        guard url.utf8.count <= 2048, !url.contains(".."), let resolved = URL(string: url, relativeTo: source.baseURL)?.absoluteURL,
              let components = URLComponents(url: resolved, resolvingAgainstBaseURL: false),
              let expected = URLComponents(url: source.fileDownloadURL, resolvingAgainstBaseURL: false),
              components.scheme?.lowercased() == expected.scheme?.lowercased(), components.host?.lowercased() == expected.host?.lowercased(),
              components.port == expected.port, components.percentEncodedPath == expected.percentEncodedPath,
              components.user == nil, components.fragment == nil,
              let pairs = components.queryItems?.map({ ($0.name, $0.value ?? "") }),
              let query = try? FileDownloadQuery(pairs) else { return nil }
        self = query
    }

    /// `name=value&...`, every byte but letters, digits and `-._~` percent-encoded.
    public var encoded: String {
        items.map { "\(Self.escape($0.name))=\(Self.escape($0.value))" }.joined(separator: "&")
    }

    /// The value of the first parameter called `name`.
    public func value(_ name: String) -> String? { items.first { $0.name == name }?.value }

    /// Where the upstream serves this file: the source's `file_download` with this query.
    public func upstreamURL(_ source: GradebookSource) -> URL {
        var components = URLComponents(url: source.fileDownloadURL, resolvingAgainstBaseURL: false) ?? URLComponents()
        components.percentEncodedQuery = encoded
        return components.url ?? source.fileDownloadURL
    }

    static func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_")
    }

    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }
}

extension GradebookSource {
    /// The protocol's `file_download` beside the base URL (for `.../cgi-bin/grades.json`,
    /// `.../cgi-bin/file_download`).
    public var fileDownloadURL: URL { sibling("file_download") }
}

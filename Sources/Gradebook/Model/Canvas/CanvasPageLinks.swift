public import Foundation

/// The pages a Canvas list answer links to, from its `Link` header (RFC 8288), as Canvas's
/// pagination documents it: `<https://canvas.example.edu/api/v1/courses?page=opaque>;
/// rel="next", <...>; rel="first"`. The URLs are opaque and followed exactly as given; Canvas may
/// cap `per_page` whatever the request asked for, so a list is read by following `next` until
/// there is none, never by counting pages.
public struct CanvasPageLinks: Sendable, Equatable {
    /// Each relation's URL (`next`, `current`, `first`, `last`, `prev`), names in lower case.
    public private(set) var relations: [String: URL] = [:]

    /// The next page, if any.
    public var next: URL? { relations["next"] }

    /// Parses a `Link` header's value; link-values it can't read are skipped, never guessed at.
    public init(header: String?) {
        guard let header else { return }
        var rest = Substring(header)
        while let open = rest.firstIndex(of: "<") {
            guard let close = rest[open...].firstIndex(of: ">") else { return }
            let target = String(rest[rest.index(after: open)..<close])
            // The parameters run to the next link-value: a comma outside quotes.
            var end = rest.index(after: close)
            var quoted = false
            while end < rest.endIndex {
                let character = rest[end]
                if character == "\"" { quoted.toggle() }
                if character == ",", !quoted { break }
                end = rest.index(after: end)
            }
            if let url = URL(string: target), url.scheme != nil, url.host != nil {
                for relation in Self.relations(in: rest[rest.index(after: close)..<end]) where relations[relation] == nil {
                    relations[relation] = url
                }
            }
            rest = end < rest.endIndex ? rest[rest.index(after: end)...] : ""
        }
    }

    /// The relation types of one link-value's parameters: `rel="next"`, `rel=next`, or several
    /// space-separated (`rel="next last"`), case-insensitive.
    static func relations(in parameters: Substring) -> [String] {
        for parameter in parameters.split(separator: ";") {
            let parts = parameter.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "rel" else { continue }
            let value = parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            return value.lowercased().split(separator: " ").map(String.init)
        }
        return []
    }

    /// Whether `url` is on the same origin (scheme, host, port) as `base`: the only place a
    /// source's token may be sent, however a `Link` header points.
    public static func sameOrigin(_ url: URL, as base: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(),
              scheme == base.scheme?.lowercased(), host == base.host?.lowercased()
        else { return false }
        return effectivePort(url) == effectivePort(base)
    }

    private static func effectivePort(_ url: URL) -> Int? {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil)
    }
}

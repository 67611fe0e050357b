import Hummingbird
import Synchronization

/// Which methods the router serves at a path, for the 405 a served path answers to any other
/// method (RFC 9110 §15.5.6: with `Allow`), where the router alone would answer 404.
///
/// Filled once the router has every route (``load(_:)``); until then nothing is rewritten.
final class AllowedMethods: Sendable {
    private struct Pattern: Sendable {
        /// A literal segment, or nil for a parameter (`:id`, `{id}`, `*`).
        let segments: [String?]
        let methods: Set<String>
        /// Which segments are literal.
        var literals: [Bool] { segments.map { $0 != nil } }
    }

    private let patterns = Mutex<[Pattern]>([])

    /// Records the served routes (``HeadRequests/servedRoutes(_:)``), OPTIONS left to the router.
    func load(_ routes: [(method: HTTPRequest.Method, path: String)]) {
        var byPath: [String: Set<String>] = [:]
        for route in routes { byPath[route.path, default: []].insert(route.method.rawValue) }
        let loaded = byPath.map { path, methods in
            Pattern(
                segments: Self.split(path).map { segment in
                    segment.hasPrefix(":") || segment.hasPrefix("{") || segment == "*" ? nil : segment
                },
                methods: methods
            )
        }
        patterns.withLock { $0 = loaded }
    }

    /// The methods served at `path`, sorted; empty when no route has this path. As the
    /// router's trie does, a literal segment wins over a parameter at the same place: at
    /// `/v1/me/gradebook-accounts/oauth` only that route's methods count, not those of
    /// `/v1/me/gradebook-accounts/:accountId`.
    func allowed(at path: String) -> [String] {
        let segments = Self.split(path)
        let methods = patterns.withLock { patterns -> Set<String> in
            let matching = patterns.filter { pattern in
                pattern.segments.count == segments.count
                    && zip(pattern.segments, segments).allSatisfy { literal, segment in literal.map { $0 == segment } ?? !segment.isEmpty }
            }
            guard let best = matching.map(\.literals).max(by: Self.lessSpecific) else { return [] }
            return matching.filter { $0.literals == best }.reduce(into: Set<String>()) { $0.formUnion($1.methods) }
        }
        return methods.sorted()
    }

    /// Whether literal positions `a` are less specific than `b`: at the first place they differ,
    /// `b` has the literal.
    private static func lessSpecific(_ a: [Bool], _ b: [Bool]) -> Bool {
        for (x, y) in zip(a, b) where x != y { return y }
        return false
    }

    /// The 405 for `request` when its path is served but not with its method; nil otherwise
    /// (the router's 404 stands).
    func refusal(for request: Request) -> (allow: String, methods: [String])? {
        let methods = allowed(at: request.uri.path)
        guard !methods.isEmpty, !methods.contains(request.method.rawValue) else { return nil }
        return (methods.joined(separator: ", "), methods)
    }

    private static func split(_ path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }
}

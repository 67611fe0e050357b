import Crypto
import Foundation
import Synchronization

/// A short cache of upstream answers, per user: the key is a digest of the source, the
/// credentials (username and password) and the request, so one user's answer is never served
/// to another, nor to someone who has the username but not the password. It honours the
/// upstream's `Cache-Control` (`no-store` and `no-cache` are not kept; `max-age` shortens the
/// default lifetime) and holds at most `capacity` answers.
final class ReplyCache: Sendable {
    struct Entry: Sendable {
        let reply: UpstreamReply
        let expires: ContinuousClock.Instant
    }

    let lifetime: Duration
    let capacity: Int
    private let entries = Mutex<[Data: Entry]>([:])

    init(lifetime: Duration, capacity: Int = 10_000) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    static func key(source: Int64, credentials: GradebookCredentials, request: String) -> Data {
        var hasher = SHA256()
        for part in [String(source), credentials.username, credentials.password, request] {
            hasher.update(data: Data(part.utf8))
            hasher.update(data: Data([0]))
        }
        return Data(hasher.finalize())
    }

    func reply(for key: Data) -> UpstreamReply? {
        let now = ContinuousClock.now
        return entries.withLock { table in
            guard let entry = table[key] else { return nil }
            guard entry.expires > now else {
                table.removeValue(forKey: key)
                return nil
            }
            return entry.reply
        }
    }

    func store(_ reply: UpstreamReply, for key: Data) {
        guard lifetime > .zero, let keep = Self.lifetime(of: reply.cacheControl, default: lifetime), keep > .zero else { return }
        let now = ContinuousClock.now
        entries.withLock { table in
            if table.count >= capacity {
                table = table.filter { $0.value.expires > now }
                if table.count >= capacity, let oldest = table.min(by: { $0.value.expires < $1.value.expires })?.key {
                    table.removeValue(forKey: oldest)
                }
            }
            table[key] = Entry(reply: reply, expires: now + keep)
        }
    }

    /// How long an answer may be kept under its Cache-Control; nil for not at all.
    static func lifetime(of cacheControl: String?, default fallback: Duration) -> Duration? {
        guard let cacheControl else { return fallback }
        var keep = fallback
        for directive in cacheControl.lowercased().split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if directive == "no-store" || directive == "no-cache" { return nil }
            if directive.hasPrefix("max-age="), let seconds = Int(directive.dropFirst("max-age=".count)) {
                keep = min(keep, .seconds(max(0, seconds)))
            }
        }
        return keep
    }
}

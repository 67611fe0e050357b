import Crypto
import Foundation
import Synchronization

/// A short cache of upstream answers, per user: the key is a digest of the source, the
/// credentials (username and password) and the request, so one user's answer is never served
/// to another, nor to someone who has the username but not the password. It honours the
/// upstream's `Cache-Control` (`no-store` and `no-cache` are not kept; `max-age` shortens the
/// default lifetime) and holds at most `capacity` answers and `maximumBytes` of their bodies
/// (bodies of up to 8 MiB would otherwise let 10,000 entries hold 80 GiB); an answer larger
/// than a sixteenth of the budget is not kept at all.
final class ReplyCache: Sendable {
    struct Entry: Sendable {
        let reply: UpstreamReply
        let expires: ContinuousClock.Instant
    }

    private struct Table {
        var entries: [Data: Entry] = [:]
        var bytes = 0
    }

    let lifetime: Duration
    let capacity: Int
    let maximumBytes: Int
    private let table = Mutex(Table())

    init(lifetime: Duration, capacity: Int = 10_000, maximumBytes: Int = 64 << 20) {
        self.lifetime = lifetime
        self.capacity = capacity
        self.maximumBytes = maximumBytes
    }

    /// The body bytes held now.
    var bytes: Int { table.withLock { $0.bytes } }
    var count: Int { table.withLock { $0.entries.count } }

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
        return table.withLock { table in
            guard let entry = table.entries[key] else { return nil }
            guard entry.expires > now else {
                Self.remove(key, from: &table)
                return nil
            }
            return entry.reply
        }
    }

    func store(_ reply: UpstreamReply, for key: Data) {
        guard lifetime > .zero, let keep = Self.lifetime(of: reply.cacheControl, default: lifetime), keep > .zero else { return }
        let size = reply.body.count
        guard size <= maximumBytes / 16 else { return }
        let now = ContinuousClock.now
        table.withLock { table in
            Self.remove(key, from: &table)
            if table.entries.count >= capacity || table.bytes + size > maximumBytes {
                for (expired, entry) in table.entries where entry.expires <= now { Self.remove(expired, from: &table) }
            }
            // Still over: drop those that expire soonest until the new answer fits.
            if table.entries.count >= capacity || table.bytes + size > maximumBytes {
                let soonest = table.entries.sorted { $0.value.expires < $1.value.expires }.map(\.key)
                for old in soonest where table.entries.count >= capacity || table.bytes + size > maximumBytes {
                    Self.remove(old, from: &table)
                }
            }
            table.entries[key] = Entry(reply: reply, expires: now + keep)
            table.bytes += size
        }
    }

    private static func remove(_ key: Data, from table: inout Table) {
        if let old = table.entries.removeValue(forKey: key) { table.bytes -= old.reply.body.count }
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

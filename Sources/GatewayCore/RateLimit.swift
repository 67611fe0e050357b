public import Foundation
import Synchronization

/// At most `limit` events per key within a sliding `window` (sign-ups per client address).
/// The table is bounded: beyond `capacity` keys, expired ones go first, then the longest idle.
public final class RateLimit: Sendable {
    public let limit: Int
    public let window: TimeInterval
    public let capacity: Int
    private let events = Mutex<[String: [Date]]>([:])

    public init(limit: Int, window: TimeInterval, capacity: Int = 100_000) {
        self.limit = max(1, limit)
        self.window = window
        self.capacity = max(16, capacity)
    }

    /// Counts an event for `key` and returns nil, or the seconds to wait when the key is at
    /// its limit (the event is then not counted).
    public func take(_ key: String, now: Date) -> Int? {
        events.withLock { table in
            var list = (table[key] ?? []).filter { now.timeIntervalSince($0) < window }
            if list.count >= limit, let oldest = list.first {
                return max(1, Int((window - now.timeIntervalSince(oldest)).rounded(.up)))
            }
            if table[key] == nil, table.count >= capacity {
                table = table.filter { _, dates in dates.contains { now.timeIntervalSince($0) < window } }
                if table.count >= capacity {
                    let idle = table.sorted { ($0.value.last ?? .distantPast) < ($1.value.last ?? .distantPast) }
                    for (old, _) in idle.prefix(table.count - capacity * 9 / 10) { table.removeValue(forKey: old) }
                }
            }
            list.append(now)
            table[key] = list
            return nil
        }
    }

    public var count: Int { events.withLock { $0.count } }
}

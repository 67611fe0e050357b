public import Foundation
import Synchronization

/// The source of "now" for every rule that depends on time (token expiry, leases, cron).
/// Production uses ``SystemClock``; tests inject a ``ManualClock`` and move it.
public protocol GatewayClock: Sendable {
    func now() -> Date
}

/// Wall-clock time.
public struct SystemClock: GatewayClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock that only moves when told to. For tests.
public final class ManualClock: GatewayClock {
    private let current: Mutex<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_790_000_000)) {
        current = Mutex(start)
    }

    public func now() -> Date { current.withLock { $0 } }

    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    public func set(_ date: Date) {
        current.withLock { $0 = date }
    }
}

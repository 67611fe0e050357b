public import Foundation

/// Which slow suites run, from `GATEWAY_SLOW_TESTS`:
/// - `1`: every slow suite at full size (`make check-slow`, run before resolving an issue);
/// - `ci`: the same suites trimmed (`make check-drills`, which CI runs on every landing): fewer
///   kill cycles, shorter fault phases, a shorter soak, but the same kills, races, faults and
///   checks, so a landing that breaks a drill's invariant goes red;
/// - unset: none (`make test`).
public enum SlowSuites {
    public static let mode = ProcessInfo.processInfo.environment["GATEWAY_SLOW_TESTS"]

    /// Whether the slow suites run at all.
    public static var enabled: Bool { mode == "1" || mode == "ci" }
    /// Whether they run trimmed, as in CI.
    public static var trimmed: Bool { mode == "ci" }

    /// `full` in `make check-slow`, `trimmed` in CI's trimmed run.
    public static func size<T>(full: T, trimmed: T) -> T { Self.trimmed ? trimmed : full }
}

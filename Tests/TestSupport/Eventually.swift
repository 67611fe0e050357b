/// Helpers shared by the test targets (a library target, not a test target).

/// Polls `condition` every 10 ms until it holds; false if it never does within `seconds` (a
/// safety bound so a broken test stops, not a performance threshold).
public func eventually(seconds: Double = 30, _ condition: @Sendable () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int64(seconds * 1000)))
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return try await condition()
}


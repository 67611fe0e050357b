import Foundation

/// Protects one upstream from the gateway: at most `maxConcurrency` requests at once and
/// `requestsPerMinute` a minute (a token bucket refilled continuously, holding at most a
/// tenth of a minute's worth). A request that cannot start within `maxWait` is refused with
/// the seconds to wait, rather than queueing without bound.
actor SourceGate {
    private(set) var maxConcurrency: Int
    private(set) var requestsPerMinute: Int
    private var inFlight = 0
    private var tokens: Double
    private var refilledAt: ContinuousClock.Instant
    let maxWait: Duration

    init(maxConcurrency: Int, requestsPerMinute: Int, maxWait: Duration = .seconds(2)) {
        self.maxConcurrency = maxConcurrency
        self.requestsPerMinute = requestsPerMinute
        self.tokens = Self.capacity(requestsPerMinute)
        self.refilledAt = .now
        self.maxWait = maxWait
    }

    static func capacity(_ perMinute: Int) -> Double { max(1, Double(perMinute) / 10) }

    /// Takes new limits (an admin changed the source).
    func update(maxConcurrency: Int, requestsPerMinute: Int) {
        self.maxConcurrency = maxConcurrency
        if requestsPerMinute != self.requestsPerMinute {
            self.requestsPerMinute = requestsPerMinute
            tokens = min(tokens, Self.capacity(requestsPerMinute))
        }
    }

    /// Waits for a slot; nil on success, or the seconds to wait when none came in time.
    func enter() async -> Int? {
        let deadline = ContinuousClock.now + maxWait
        while true {
            refill()
            if inFlight < maxConcurrency, tokens >= 1 {
                tokens -= 1
                inFlight += 1
                return nil
            }
            if ContinuousClock.now >= deadline {
                let perSecond = Double(requestsPerMinute) / 60
                return max(1, Int((tokens >= 1 ? 1 : (1 - tokens) / perSecond).rounded(.up)))
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    func leave() { inFlight = max(0, inFlight - 1) }

    private func refill() {
        let now = ContinuousClock.now
        let elapsed = now - refilledAt
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        tokens = min(Self.capacity(requestsPerMinute), tokens + seconds * Double(requestsPerMinute) / 60)
        refilledAt = now
    }
}

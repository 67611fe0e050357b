import Foundation

/// Protects one upstream from the gateway, and its users from each other.
///
/// The whole source: at most `maxConcurrency` requests at once and `requestsPerMinute` a minute
/// (a token bucket refilled continuously, holding at most a tenth of a minute's worth).
///
/// Its callers (``UpstreamCaller``):
/// - one caller (an account, an anonymous client's network) holds at most half the source's
///   concurrency, so a second caller always finds a slot;
/// - anonymous callers together hold at most half the concurrency and half the rate, and the
///   polls of QuickHAC devices a quarter of each (buckets of their own, drawn on with the
///   source's), so signed-in students keep at least a quarter of the rate and half the
///   slots whatever strangers do.
///
/// A request that cannot start within `maxWait` is refused with the seconds to wait, rather
/// than queueing without bound.
actor SourceGate {
    private(set) var maxConcurrency: Int
    private(set) var requestsPerMinute: Int
    private var inFlight = 0
    private var inFlightByKey: [String: Int] = [:]
    private var inFlightByLane: [UpstreamCaller.Lane: Int] = [:]
    private var source: TokenBucket
    private var lanes: [UpstreamCaller.Lane: TokenBucket] = [:]
    let maxWait: Duration
    /// When the buckets refill to (the real clock; tests freeze it).
    let tokenTime: @Sendable () -> ContinuousClock.Instant

    init(
        maxConcurrency: Int, requestsPerMinute: Int, maxWait: Duration = .seconds(2),
        tokenTime: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        self.maxConcurrency = maxConcurrency
        self.requestsPerMinute = requestsPerMinute
        self.tokenTime = tokenTime
        self.source = TokenBucket(perMinute: Double(requestsPerMinute), at: tokenTime())
        self.maxWait = maxWait
        for lane in [UpstreamCaller.Lane.anonymous, .quickHACPolls] {
            lanes[lane] = TokenBucket(perMinute: Double(requestsPerMinute) * Self.rateShare(lane), at: tokenTime())
        }
    }

    /// The part of the source's rate a lane may use (1: the whole).
    static func rateShare(_ lane: UpstreamCaller.Lane) -> Double {
        switch lane {
        case .students: 1
        case .anonymous: 0.5
        case .quickHACPolls: 0.25
        }
    }

    /// The most requests a lane may have in flight at once.
    func laneConcurrency(_ lane: UpstreamCaller.Lane) -> Int {
        switch lane {
        case .students: maxConcurrency
        case .anonymous: max(1, maxConcurrency / 2)
        case .quickHACPolls: max(1, maxConcurrency / 4)
        }
    }

    /// The most requests one caller may have in flight at once.
    var perCallerConcurrency: Int { max(1, maxConcurrency / 2) }

    /// Takes new limits (an admin changed the source).
    func update(maxConcurrency: Int, requestsPerMinute: Int) {
        self.maxConcurrency = maxConcurrency
        if requestsPerMinute != self.requestsPerMinute {
            self.requestsPerMinute = requestsPerMinute
            source.setRate(perMinute: Double(requestsPerMinute))
            for lane in lanes.keys { lanes[lane]?.setRate(perMinute: Double(requestsPerMinute) * Self.rateShare(lane)) }
        }
    }

    /// Waits for a slot for `caller`; nil on success, or the seconds to wait when none came in time.
    func enter(_ caller: UpstreamCaller) async -> Int? {
        let deadline = ContinuousClock.now + maxWait
        while true {
            let now = ContinuousClock.now, tokensAt = tokenTime()
            source.refill(tokensAt)
            lanes[caller.lane]?.refill(tokensAt)
            let slot = inFlight < maxConcurrency
                && inFlightByKey[caller.key, default: 0] < perCallerConcurrency
                && inFlightByLane[caller.lane, default: 0] < laneConcurrency(caller.lane)
            let laneTokens = lanes[caller.lane]?.tokens ?? .infinity
            if slot, source.tokens >= 1, laneTokens >= 1 {
                source.tokens -= 1
                lanes[caller.lane]?.tokens -= 1
                inFlight += 1
                inFlightByKey[caller.key, default: 0] += 1
                inFlightByLane[caller.lane, default: 0] += 1
                return nil
            }
            if now >= deadline {
                let wait = max(source.secondsUntilToken(), lanes[caller.lane]?.secondsUntilToken() ?? 0)
                return max(1, Int(wait.rounded(.up)))
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    func leave(_ caller: UpstreamCaller) {
        inFlight = max(0, inFlight - 1)
        let key = inFlightByKey[caller.key, default: 1] - 1
        inFlightByKey[caller.key] = key > 0 ? key : nil
        inFlightByLane[caller.lane] = max(0, inFlightByLane[caller.lane, default: 1] - 1)
    }

    /// How many callers hold a slot now (for tests: the table never outgrows the requests in flight).
    var callersInFlight: Int { inFlightByKey.count }
}

/// A token bucket refilled continuously, holding at most a tenth of a minute's worth (at least one).
struct TokenBucket: Sendable {
    private(set) var perMinute: Double
    var tokens: Double
    private var refilledAt: ContinuousClock.Instant

    init(perMinute: Double, at now: ContinuousClock.Instant) {
        self.perMinute = perMinute
        self.tokens = Self.capacity(perMinute)
        self.refilledAt = now
    }

    static func capacity(_ perMinute: Double) -> Double { max(1, perMinute / 10) }

    mutating func setRate(perMinute: Double) {
        self.perMinute = perMinute
        tokens = min(tokens, Self.capacity(perMinute))
    }

    mutating func refill(_ now: ContinuousClock.Instant) {
        let elapsed = now - refilledAt
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        tokens = min(Self.capacity(perMinute), tokens + seconds * perMinute / 60)
        refilledAt = now
    }

    /// Seconds until a whole token is there.
    func secondsUntilToken() -> Double {
        tokens >= 1 ? 1 : (1 - tokens) / max(perMinute / 60, 1e-9)
    }
}

public import Foundation
import Synchronization

/// Bounds on deliveries to destinations students choose (webhook URLs, Web Push endpoints), so
/// one slow destination can't hold up everyone else's notifications.
///
/// Each such channel is a lane with its own transfer threads (the composition root gives each
/// its own `CurlHTTPClient`; APNs has its own HTTP/2 connection, email its own client). Within a
/// lane, at most ``Limits/perHost`` deliveries to one host and ``Limits/total`` in all are in
/// flight in this process. A delivery that finds its host or lane full doesn't wait for a slot:
/// its job is snoozed for a moment (``Configuration/retryDelay``, no attempt used) and its
/// worker goes on to other jobs. A webhook that never answers thus holds two of the push queue's
/// workers (for the request timeout) however many deliveries are queued for it, and never a
/// Web Push, APNs or email delivery.
///
/// Hosts are counted by name (lowercased, without a trailing dot or port); many names for one
/// server count apart, which ``Limits/total`` bounds.
public final class DeliveryLanes: Sendable {
    /// One lane's bounds.
    public struct Limits: Sendable, Equatable {
        /// Deliveries in flight to one host at once.
        public var perHost: Int
        /// Deliveries in flight on the lane at once, all hosts together. At most the lane's
        /// transfer threads, so no admitted delivery waits for a thread.
        public var total: Int

        public init(perHost: Int, total: Int) {
            self.perHost = max(1, perHost)
            self.total = max(1, total)
        }
    }

    public struct Configuration: Sendable, Equatable {
        /// Webhooks: anyone's server, so tight.
        public var webhook = Limits(perHost: 2, total: 4)
        /// Web Push: mostly a few large push services (FCM, Mozilla, Apple), so wider per host.
        public var webPush = Limits(perHost: 6, total: 8)
        /// How long a delivery that found no slot waits before its job runs again: a range,
        /// so deliveries that wait together don't come back together.
        public var retryDelay: ClosedRange<TimeInterval> = 1...3

        public init() {}
    }

    /// The lanes with bounds.
    enum Lane: String, Sendable {
        case webhook, webPush
    }

    /// A lane and a host: what a slot is taken for.
    struct Destination: Hashable, Sendable {
        var lane: Lane
        var host: String
    }

    public let configuration: Configuration
    private let inFlight = Mutex<[Destination: Int]>([:])

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Runs `body` (one delivery to `address`) holding a slot of its lane and host, or returns
    /// nil at once when there is none free. Addresses without a lane (APNs, email, log) run
    /// unbounded here.
    func run(_ address: DeviceAddress, _ body: () async -> DeliveryOutcome) async -> DeliveryOutcome? {
        guard let destination = Self.destination(of: address) else { return await body() }
        guard take(destination) else { return nil }
        defer { give(destination) }
        return await body()
    }

    /// A jittered delay within ``Configuration/retryDelay``.
    func retryDelay() -> TimeInterval {
        Double.random(in: configuration.retryDelay)
    }

    /// Deliveries in flight to `host` on the webhook lane (tests, diagnostics).
    public func webhooksInFlight(host: String) -> Int {
        inFlight.withLock { $0[Destination(lane: .webhook, host: Self.normalized(host))] ?? 0 }
    }

    func limits(of lane: Lane) -> Limits {
        switch lane {
        case .webhook: configuration.webhook
        case .webPush: configuration.webPush
        }
    }

    private func take(_ destination: Destination) -> Bool {
        let limits = limits(of: destination.lane)
        return inFlight.withLock { table in
            let onHost = table[destination] ?? 0
            let onLane = table.reduce(0) { $0 + ($1.key.lane == destination.lane ? $1.value : 0) }
            guard onHost < limits.perHost, onLane < limits.total else { return false }
            table[destination] = onHost + 1
            return true
        }
    }

    private func give(_ destination: Destination) {
        inFlight.withLock { table in
            let left = (table[destination] ?? 1) - 1
            table[destination] = left > 0 ? left : nil
        }
    }

    static func destination(of address: DeviceAddress) -> Destination? {
        switch address {
        case .webhook(let url, _): Destination(lane: .webhook, host: normalized(url.host ?? ""))
        case .webPush(let endpoint, _, _): Destination(lane: .webPush, host: normalized(endpoint.host ?? ""))
        case .apns, .email, .log: nil
        }
    }

    static func normalized(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }
}

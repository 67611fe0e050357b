public import Foundation
import Synchronization

/// Bounds on deliveries to destinations students choose (webhook URLs, Web Push endpoints), so
/// one slow destination, or one student's many, can't hold up everyone else's notifications.
///
/// Each such channel is a lane with its own transfer threads (the composition root gives each
/// its own `CurlHTTPClient`; APNs has its own HTTP/2 connection, email its own client). Within a
/// lane, at most ``Limits/perHost`` deliveries to one host, ``Limits/perAccount`` to one
/// student's devices and ``Limits/total`` in all are in flight in this process. A delivery that
/// finds no slot doesn't wait for one: its job is snoozed for a moment
/// (``Configuration/retryDelay``, longer when its own host or student is the full bound; no
/// attempt used) and its worker goes on to other jobs. A
/// webhook that never answers thus holds two of the push queue's workers (for the request
/// timeout) however many deliveries are queued for it, a student's many hosts no more, and
/// never a Web Push, APNs or email delivery.
///
/// Hosts are counted by name (lowercased, without a trailing dot or port).
public final class DeliveryLanes: Sendable {
    /// One lane's bounds.
    public struct Limits: Sendable, Equatable {
        /// Deliveries in flight to one host at once.
        public var perHost: Int
        /// Deliveries in flight to one student's devices at once, whatever their hosts (a
        /// student with many host names gets no more).
        public var perAccount: Int
        /// Deliveries in flight on the lane at once, all hosts together. The lane's transfer
        /// threads are as many, so no admitted delivery waits for a thread.
        public var total: Int

        public init(perHost: Int, perAccount: Int, total: Int) {
            self.perHost = max(1, perHost)
            self.perAccount = max(1, perAccount)
            self.total = max(1, total)
        }
    }

    public struct Configuration: Sendable, Equatable {
        /// Webhooks: anyone's server, so tight.
        public var webhook = Limits(perHost: 2, perAccount: 2, total: 3)
        /// Web Push: mostly a few large push services (FCM, Mozilla, Apple), so wider per host.
        public var webPush = Limits(perHost: 4, perAccount: 2, total: 5)
        /// How long a delivery that found its lane full waits before its job runs again: a
        /// range, so deliveries that wait together don't come back together.
        public var retryDelay: ClosedRange<TimeInterval> = 1...3
        /// The same for a delivery whose host or student holds every slot of theirs: longer, as
        /// those are a slow destination's own backlog (a hanging host frees a slot only when a
        /// request times out).
        public var busyDestinationDelay: ClosedRange<TimeInterval> = 4...12

        public init() {}

        /// These bounds with the lanes' totals lowered, when needed, so that together they leave
        /// at least a fifth of the push queue's `workers` (and at least one) to other work:
        /// APNs, email and the event handlers always have workers, whatever hangs in the lanes.
        public func fitting(workers: Int) -> Configuration {
            let available = max(2, workers - max(1, workers / 5))
            let wanted = webhook.total + webPush.total
            guard wanted > available else { return self }
            var fitted = self
            fitted.webhook.total = max(1, webhook.total * available / wanted)
            fitted.webPush.total = max(1, available - fitted.webhook.total)
            return fitted
        }
    }

    /// The lanes with bounds.
    enum Lane: String, Sendable {
        case webhook, webPush
    }

    /// What a slot is counted against: a lane's host, a lane's student, or the lane.
    enum Holder: Hashable, Sendable {
        case host(Lane, String)
        case account(Lane, Int64)
        case lane(Lane)
    }

    public let configuration: Configuration
    private let inFlight = Mutex<[Holder: Int]>([:])

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// What became of asking for a slot.
    enum Admission: Sendable, Equatable {
        /// There was one: the delivery ran, with this outcome.
        case ran(DeliveryOutcome)
        /// There was none: try again in this many seconds (jittered; longer when the
        /// destination's own bound was the full one than when the lane was).
        case busy(retryAfter: TimeInterval)
    }

    /// Runs `body` (one delivery to `address`, a device of `accountID`) holding a slot of its
    /// lane, host and student, or answers ``Admission/busy(retryAfter:)`` at once when there is
    /// none free. Addresses without a lane (APNs, email, log) run unbounded here.
    func run(_ address: DeviceAddress, accountID: Int64?, _ body: () async -> DeliveryOutcome) async -> Admission {
        guard let holders = holders(of: address, accountID: accountID) else { return .ran(await body()) }
        if let full = take(holders) {
            if case .lane = full { return .busy(retryAfter: Double.random(in: configuration.retryDelay)) }
            return .busy(retryAfter: Double.random(in: configuration.busyDestinationDelay))
        }
        defer { give(holders) }
        return .ran(await body())
    }

    /// Deliveries in flight to `host` on the webhook lane (tests, diagnostics).
    public func webhooksInFlight(host: String) -> Int {
        inFlight.withLock { $0[.host(.webhook, Self.normalized(host))] ?? 0 }
    }

    func limits(of lane: Lane) -> Limits {
        switch lane {
        case .webhook: configuration.webhook
        case .webPush: configuration.webPush
        }
    }

    /// The holders a delivery counts against, each with its limit; nil for an address without a lane.
    func holders(of address: DeviceAddress, accountID: Int64?) -> [(Holder, Int)]? {
        let lane: Lane, host: String?
        switch address {
        case .webhook(let url, _): (lane, host) = (.webhook, url.host)
        case .webPush(let endpoint, _, _): (lane, host) = (.webPush, endpoint.host)
        case .apns, .email, .sms, .log: return nil
        }
        let limits = limits(of: lane)
        var holders: [(Holder, Int)] = [(.host(lane, Self.normalized(host ?? "")), limits.perHost)]
        if let accountID { holders.append((.account(lane, accountID), limits.perAccount)) }
        holders.append((.lane(lane), limits.total))
        return holders
    }

    /// Takes a slot of each holder, or none; nil when taken, else the first holder that is full
    /// (the destination's own bounds are checked before the lane's).
    private func take(_ holders: [(Holder, Int)]) -> Holder? {
        inFlight.withLock { table in
            if let full = holders.first(where: { (table[$0.0] ?? 0) >= $0.1 }) { return full.0 }
            for (holder, _) in holders { table[holder, default: 0] += 1 }
            return nil
        }
    }

    private func give(_ holders: [(Holder, Int)]) {
        inFlight.withLock { table in
            for (holder, _) in holders {
                let left = (table[holder] ?? 1) - 1
                table[holder] = left > 0 ? left : nil
            }
        }
    }

    static func normalized(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }
}

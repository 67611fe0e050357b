import Metrics

/// Delivery metrics (exported with the rest at /metrics), by channel:
/// - `push_deliveries_total{channel, outcome}`: attempts by what came of them (`delivered`,
///   `retry`, `discarded`, `deactivated`, `unregistered`, `no-channel`, `inactive`,
///   `keys-unavailable`, and `deferred` when the destination's host or lane was full
///   (``DeliveryLanes``: the job comes back shortly, no attempt used);
/// - `push_delivery_duration_seconds{channel}`: how long the channel took per attempt.
enum DeliveryMetrics {
    static func record(channel: Device.Channel, outcome: String, seconds: Double?) {
        Counter(label: "push_deliveries_total", dimensions: [("channel", channel.rawValue), ("outcome", outcome)]).increment()
        if let seconds {
            Timer(label: "push_delivery_duration_seconds", dimensions: [("channel", channel.rawValue)], preferredDisplayUnit: .seconds)
                .recordSeconds(seconds)
        }
    }
}

import Metrics
import Synchronization

/// The job system's metrics (swift-metrics; the app exports them as Prometheus at /metrics).
/// By queue:
/// - `jobs_queue_depth`: ready jobs (due and not running), all processes;
/// - `jobs_queue_latency_seconds`: age of the oldest ready job (the queue's lag);
/// - `jobs_running`: jobs running in this process;
/// - `jobs_lease_lost_total` (outcomes ignored because the lease was gone), `jobs_reaped_total`
///   (expired leases returned to the queue).
/// By queue and kind (``KindMetrics``), as Oban and River report per worker: runs, failures,
/// run time and lag.
final class QueueMetrics: Sendable {
    let queue: String
    let depth: Gauge
    let latency: Gauge
    let running: Gauge
    let leaseLost: Counter
    let reaped: Counter
    private let kinds = Mutex<[String: KindMetrics]>([:])

    init(queue: String) {
        self.queue = queue
        let dimensions = [("queue", queue)]
        depth = Gauge(label: "jobs_queue_depth", dimensions: dimensions)
        latency = Gauge(label: "jobs_queue_latency_seconds", dimensions: dimensions)
        running = Gauge(label: "jobs_running", dimensions: dimensions)
        leaseLost = Counter(label: "jobs_lease_lost_total", dimensions: dimensions)
        reaped = Counter(label: "jobs_reaped_total", dimensions: dimensions)
    }

    /// The metrics of one kind of job in this queue (made once, then looked up).
    func kind(_ kind: String) -> KindMetrics {
        kinds.withLock { kinds in
            if let existing = kinds[kind] { return existing }
            let made = KindMetrics(queue: queue, kind: kind)
            kinds[kind] = made
            return made
        }
    }

    private static let cache = Mutex<[String: QueueMetrics]>([:])

    /// One set per queue for the process (metrics objects are looked up once).
    static func forQueue(_ queue: String) -> QueueMetrics {
        cache.withLock { cache in
            if let existing = cache[queue] { return existing }
            let created = QueueMetrics(queue: queue)
            cache[queue] = created
            return created
        }
    }
}

/// One kind's metrics in one queue, labelled `queue` and `kind`:
/// - `jobs_wait_seconds`: from due to claimed, per attempt (the kind's lag);
/// - `jobs_duration_seconds`: handler run time, per attempt;
/// - `jobs_completed_total`, `jobs_failed_total` (failed attempts), `jobs_discarded_total`,
///   `jobs_cancelled_total`.
final class KindMetrics: Sendable {
    let wait: Timer
    let duration: Timer
    let completed: Counter
    let failed: Counter
    let discarded: Counter
    let cancelled: Counter

    init(queue: String, kind: String) {
        let dimensions = [("queue", queue), ("kind", kind)]
        wait = Timer(label: "jobs_wait_seconds", dimensions: dimensions, preferredDisplayUnit: .seconds)
        duration = Timer(label: "jobs_duration_seconds", dimensions: dimensions, preferredDisplayUnit: .seconds)
        completed = Counter(label: "jobs_completed_total", dimensions: dimensions)
        failed = Counter(label: "jobs_failed_total", dimensions: dimensions)
        discarded = Counter(label: "jobs_discarded_total", dimensions: dimensions)
        cancelled = Counter(label: "jobs_cancelled_total", dimensions: dimensions)
    }
}

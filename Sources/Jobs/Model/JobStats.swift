public import Foundation

/// One recorded count of `job_stats`: in the minute starting at `minuteMs`, `count` events of
/// `metric` on `queue`.
public struct JobStatsCount: Sendable, Equatable {
    public let minuteMs: Int64
    public let queue: String
    public let metric: String
    public let count: Int

    public init(minuteMs: Int64, queue: String, metric: String, count: Int) {
        self.minuteMs = minuteMs
        self.queue = queue
        self.metric = metric
        self.count = count
    }

    /// The start of `date`'s minute, in milliseconds.
    public static func minute(of date: Date) -> Int64 {
        let ms = date.millisecondsSince1970
        return ms - ((ms % 60_000) + 60_000) % 60_000
    }
}

/// What `job_stats` counts, per minute and queue: outcomes recorded by the workers (in the
/// transaction that records them), enqueues (rows of `job_stats_enqueued` written with each job,
/// rolled up), and each recorded run's time in a fixed log-scale histogram (`rt.0` to `rt.19`),
/// so the median and p95 come from counts.
public enum JobStatsMetric {
    public static let completed = "completed"
    public static let retryable = "retryable"
    public static let discarded = "discarded"
    public static let cancelled = "cancelled"
    public static let enqueued = "enqueued"

    /// The histogram's bucket bounds in milliseconds: bucket `i` holds runs shorter than
    /// `upperBoundsMs[i]` and at least the bound before; the last bucket holds the rest.
    public static let upperBoundsMs: [Int64] = [
        1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000,
    ]
    public static var bucketCount: Int { upperBoundsMs.count + 1 }

    public static func runTime(bucket: Int) -> String { "rt.\(bucket)" }

    /// The bucket index of a `rt.<i>` metric, nil for any other.
    public static func bucket(ofMetric metric: String) -> Int? {
        guard metric.hasPrefix("rt."), let index = Int(metric.dropFirst(3)), (0..<bucketCount).contains(index) else { return nil }
        return index
    }

    public static func bucket(forRunMs ms: Int64) -> Int {
        upperBoundsMs.firstIndex { ms < $0 } ?? upperBoundsMs.count
    }

    /// The `quantile` (0 to 1) of the runs counted in `histogram` (one count per bucket), by
    /// linear interpolation inside the bucket it falls in; nil when there are none. The last
    /// bucket, unbounded, answers its lower bound.
    public static func percentile(_ quantile: Double, of histogram: [Int]) -> Double? {
        let total = histogram.reduce(0, +)
        guard total > 0 else { return nil }
        let rank = quantile * Double(total)
        var below = 0
        for (index, count) in histogram.enumerated() where count > 0 {
            if Double(below + count) >= rank {
                let lower = index == 0 ? 0 : Double(upperBoundsMs[index - 1])
                guard index < upperBoundsMs.count else { return lower }
                let upper = Double(upperBoundsMs[index])
                let within = max(0, min(1, (rank - Double(below)) / Double(count)))
                return lower + (upper - lower) * within
            }
            below += count
        }
        return Double(upperBoundsMs.last!)
    }

    /// The counts a batch of recorded outcomes adds, in the minute of `now`, sorted by queue and
    /// metric (so concurrent upserts lock rows in one order). Outcomes not recorded (a lost
    /// lease), releases and snoozes count nothing.
    public static func counts(for finished: [FinishedJob], at now: Date) -> [JobStatsCount] {
        var tally: [String: [String: Int]] = [:]
        for job in finished {
            let metric: String
            switch job.state {
            case .completed: metric = completed
            case .retryable: metric = retryable
            case .discarded: metric = discarded
            case .cancelled: metric = cancelled
            default: continue
            }
            tally[job.resolution.queue, default: [:]][metric, default: 0] += 1
            if let ms = job.resolution.runMs {
                tally[job.resolution.queue, default: [:]][runTime(bucket: bucket(forRunMs: ms)), default: 0] += 1
            }
        }
        let minute = JobStatsCount.minute(of: now)
        return tally.sorted { $0.key < $1.key }.flatMap { queue, metrics in
            metrics.sorted { $0.key < $1.key }.map { JobStatsCount(minuteMs: minute, queue: queue, metric: $0.key, count: $0.value) }
        }
    }
}

/// `GET /v1/admin/jobs/stats`: per step and queue, what happened.
public struct JobStats: Encodable, Sendable, Equatable {
    public struct Bucket: Encodable, Sendable, Equatable {
        /// The start of the step.
        public let at: Date
        public let completed: Int
        /// Failed attempts that will be retried.
        public let retryable: Int
        /// Failed attempts that were the last: the job is discarded.
        public let discarded: Int
        /// Cancelled by their handler.
        public let cancelled: Int
        public let enqueued: Int
        /// Milliseconds, estimated from the run-time histogram; null when nothing ran.
        public let runMsMedian: Double?
        public let runMsP95: Double?

        public func encode(to encoder: any Encoder) throws {
            enum K: String, CodingKey { case at, completed, retryable, discarded, cancelled, enqueued, runMsMedian, runMsP95 }
            var c = encoder.container(keyedBy: K.self)
            try c.encode(at, forKey: .at)
            try c.encode(completed, forKey: .completed)
            try c.encode(retryable, forKey: .retryable)
            try c.encode(discarded, forKey: .discarded)
            try c.encode(cancelled, forKey: .cancelled)
            try c.encode(enqueued, forKey: .enqueued)
            try c.encode(runMsMedian, forKey: .runMsMedian)
            try c.encode(runMsP95, forKey: .runMsP95)
        }
    }

    public struct QueueSeries: Encodable, Sendable, Equatable {
        public let queue: String
        /// Every step of the window, oldest first, zeros included.
        public let buckets: [Bucket]
        /// The whole window.
        public let total: Bucket
    }

    public let from: Date
    public let until: Date
    public let stepSeconds: Int
    /// Each queue with anything counted in the window, by name.
    public let queues: [QueueSeries]

    /// Sums `counts` into steps of `stepSeconds` from `from` (a minute boundary) to `until`.
    public static func build(from: Date, until: Date, stepSeconds: Int, counts: [JobStatsCount]) -> JobStats {
        let fromMs = from.millisecondsSince1970
        let stepMs = Int64(stepSeconds) * 1000
        let steps = Int(max(0, (until.millisecondsSince1970 - fromMs + stepMs - 1) / stepMs))
        struct Sums {
            var values: [String: Int] = [:]
            var histogram = [Int](repeating: 0, count: JobStatsMetric.bucketCount)
            mutating func add(_ count: JobStatsCount) {
                if let bucket = JobStatsMetric.bucket(ofMetric: count.metric) {
                    histogram[bucket] += count.count
                } else {
                    values[count.metric, default: 0] += count.count
                }
            }
            func bucket(at: Date) -> Bucket {
                Bucket(
                    at: at, completed: values[JobStatsMetric.completed] ?? 0, retryable: values[JobStatsMetric.retryable] ?? 0,
                    discarded: values[JobStatsMetric.discarded] ?? 0, cancelled: values[JobStatsMetric.cancelled] ?? 0,
                    enqueued: values[JobStatsMetric.enqueued] ?? 0,
                    runMsMedian: JobStatsMetric.percentile(0.5, of: histogram), runMsP95: JobStatsMetric.percentile(0.95, of: histogram)
                )
            }
        }
        var perQueue: [String: (steps: [Sums], total: Sums)] = [:]
        for count in counts {
            let index = Int((count.minuteMs - fromMs) / stepMs)
            guard count.minuteMs >= fromMs, index < steps else { continue }
            var entry = perQueue[count.queue] ?? ([Sums](repeating: Sums(), count: steps), Sums())
            entry.steps[index].add(count)
            entry.total.add(count)
            perQueue[count.queue] = entry
        }
        let series = perQueue.sorted { $0.key < $1.key }.map { queue, entry in
            QueueSeries(
                queue: queue,
                buckets: entry.steps.enumerated().map { index, sums in
                    sums.bucket(at: Date(millisecondsSince1970: fromMs + Int64(index) * stepMs))
                },
                total: entry.total.bucket(at: from)
            )
        }
        return JobStats(from: from, until: until, stepSeconds: stepSeconds, queues: series)
    }
}

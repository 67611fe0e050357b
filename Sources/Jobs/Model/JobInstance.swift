public import Foundation

/// One queue's load on one instance: how many of its jobs may run at once there, and how many run.
public struct QueueLoad: Codable, Sendable, Equatable {
    public let concurrency: Int
    public let running: Int

    public init(concurrency: Int, running: Int) {
        self.concurrency = concurrency
        self.running = running
    }
}

/// What a worker pool writes about itself every few seconds (a row of `job_instances`, keyed by
/// its worker id).
public struct InstanceHeartbeat: Sendable, Equatable {
    /// The worker id, `host:pid:random`, as in `locked_by`.
    public let id: String
    public let host: String
    public let pid: Int
    public let version: String
    public let startedAt: Date
    public let at: Date
    /// Jobs running on the instance now, every queue together.
    public let running: Int
    /// Each queue the instance works.
    public let queues: [String: QueueLoad]

    public init(id: String, host: String, pid: Int, version: String, startedAt: Date, at: Date, running: Int, queues: [String: QueueLoad]) {
        self.id = id
        self.host = host
        self.pid = pid
        self.version = version
        self.startedAt = startedAt
        self.at = at
        self.running = running
        self.queues = queues
    }

    /// `queues` as the row keeps it (JSON text, keys sorted).
    package var queuesJSON: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(queues)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// The `queues` column read back; empty when it is not what ``queuesJSON`` writes.
    package static func queues(fromJSON text: String) -> [String: QueueLoad] {
        (try? JSONDecoder().decode([String: QueueLoad].self, from: Data(text.utf8))) ?? [:]
    }
}

/// An instance as operators see it (`GET /v1/admin/instances`).
public struct JobInstance: Encodable, Sendable, Equatable {
    public let id: String
    public let host: String
    public let pid: Int
    public let version: String
    public let startedAt: Date
    public let lastHeartbeatAt: Date
    /// `alive` while it writes heartbeats; `gone` once none came for
    /// ``JobsConfiguration/instanceGoneAfter`` (kept until pruned).
    public let state: String
    public let running: Int
    public let queues: [String: QueueLoad]

    public init(_ beat: InstanceHeartbeat, alive: Bool) {
        id = beat.id
        host = beat.host
        pid = beat.pid
        version = beat.version
        startedAt = beat.startedAt
        lastHeartbeatAt = beat.at
        state = alive ? "alive" : "gone"
        running = beat.running
        queues = beat.queues
    }
}

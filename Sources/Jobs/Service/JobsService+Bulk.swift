public import Foundation
import GatewayCore
import Storage

/// Acting on many jobs at once (`POST /v1/admin/jobs/bulk`): retry, cancel, delete or run now,
/// by ids or by a filter, at most ``JobsService/bulkLimit`` jobs a call, in transactions of at
/// most ``JobsService/bulkBatchSize`` jobs. Each job is judged as the single action judges it,
/// and a job the action doesn't apply to is skipped with the reason.
extension JobsService {
    public static let bulkLimit = 1_000
    public static let bulkBatchSize = 200

    /// What a bulk action does to one job.
    public enum BulkAction: String, Sendable, CaseIterable {
        case retry, cancel, delete
        case runNow = "run-now"
    }

    /// What a bulk action did.
    public struct BulkOutcome: Sendable, Encodable {
        public var affected: Int
        public var skipped: [Skipped]
        /// The filter matched more than this call acted on: call again for the rest.
        public var more: Bool
        /// Set when a batch failed part-way: the batches before it are done (``affected``),
        /// this one and those after it are not.
        public var failure: String?

        public struct Skipped: Sendable, Encodable, Equatable {
            public var id: Int64
            /// `not-found`, `running`, `finished`, `already-available`, `not-waiting` or
            /// `unique-key-taken`.
            public var reason: String
        }
    }

    /// Applies `action` to the jobs `ids` names (at most ``bulkLimit``) or, without ids, to the
    /// first ``bulkLimit`` jobs matching `filter`, newest first.
    public func bulk(_ action: BulkAction, ids: [Int64]?, filter: JobFilter?) async throws -> BulkOutcome {
        let (targets, more): ([Int64], Bool)
        if let ids {
            var seen = Set<Int64>()
            targets = ids.filter { seen.insert($0).inserted }
            more = false
        } else {
            let filter = filter ?? JobFilter()
            let found = try await transactions.read { [admin] db in
                try admin.list(filter, before: nil, limit: Self.bulkLimit + 1, in: db).map(\.id)
            }
            targets = Array(found.prefix(Self.bulkLimit))
            more = found.count > Self.bulkLimit
        }
        var outcome = BulkOutcome(affected: 0, skipped: [], more: more, failure: nil)
        var queues = Set<String>()
        var cancelledRunning: [Int64] = []
        for start in stride(from: 0, to: targets.count, by: Self.bulkBatchSize) {
            let batch = Array(targets[start..<min(start + Self.bulkBatchSize, targets.count)])
            let now = clock.now()
            do {
                let done = try await transactions.write { [admin] db in
                    var done = BatchResult()
                    for id in batch {
                        guard let job = try admin.job(id: id, in: db) else {
                            done.skipped.append(.init(id: id, reason: "not-found"))
                            continue
                        }
                        switch action {
                        case .retry:
                            if job.state == .running { done.skipped.append(.init(id: id, reason: "running")); continue }
                            if job.state == .available { done.skipped.append(.init(id: id, reason: "already-available")); continue }
                            do {
                                try admin.makeAvailable(id: id, now: now, in: db)
                            } catch JobsError.uniqueKeyTaken {
                                done.skipped.append(.init(id: id, reason: "unique-key-taken"))
                                continue
                            }
                            done.queues.insert(job.queue)
                        case .cancel:
                            if job.state.isFinal { done.skipped.append(.init(id: id, reason: "finished")); continue }
                            try admin.cancel(id: id, reason: "cancelled by an operator (bulk)", now: now, in: db)
                            if job.state == .running { done.running.append(id) }
                        case .delete:
                            if job.state == .running { done.skipped.append(.init(id: id, reason: "running")); continue }
                            try admin.delete(id: id, in: db)
                        case .runNow:
                            guard job.state == .scheduled || job.state == .retryable else {
                                done.skipped.append(.init(id: id, reason: "not-waiting"))
                                continue
                            }
                            try admin.runNow(id: id, now: now, in: db)
                            done.queues.insert(job.queue)
                        }
                        done.affected += 1
                    }
                    return done
                }
                outcome.affected += done.affected
                outcome.skipped += done.skipped
                queues.formUnion(done.queues)
                cancelledRunning += done.running
            } catch {
                outcome.failure = "Stopped at job \(batch[0]) (\(start) of \(targets.count) done): \(error)"
                break
            }
        }
        // A running job's task is cancelled through its lease, as a single cancel does.
        for id in cancelledRunning { running.cancel(id: id) }
        for queue in queues { signals.notify(queue) }
        return outcome
    }

    /// How many jobs match `filter`: exact up to ``JobFilter/exactTotalLimit``, else a lower
    /// bound (`isLowerBound`).
    public func total(matching filter: JobFilter) async throws -> (count: Int, isLowerBound: Bool) {
        let counted = try await transactions.read { [admin] db in try admin.count(filter, upTo: JobFilter.exactTotalLimit + 1, in: db) }
        return counted > JobFilter.exactTotalLimit ? (JobFilter.exactTotalLimit, true) : (counted, false)
    }

    /// Jobs matching `filter`, newest first, before id `before`.
    public func list(_ filter: JobFilter, before: Int64?, limit: Int) async throws -> [JobRecord] {
        try await transactions.read { [admin] db in try admin.list(filter, before: before, limit: limit, in: db) }
    }
}

/// What one batch's transaction did.
struct BatchResult: Sendable {
    var affected = 0
    var skipped: [JobsService.BulkOutcome.Skipped] = []
    var queues = Set<String>()
    var running: [Int64] = []
}

public import Contracts
public import Foundation
public import GatewayCore
public import Jobs
public import Storage

/// Every hour (`gradebook.prune`), snapshots nobody has polled for 30 days are deleted: a
/// followed student is polled every interval (and its snapshot rewritten), so an old one
/// belongs to a student nobody follows any more. Should following start again, the next poll
/// records a new baseline (without notifying).
public struct SnapshotRetention: Sendable {
    public static let prune = JobKind<NoPayload>("gradebook.prune")

    let transactions: any TransactionRunner
    let snapshots: any SnapshotStoring
    let clock: any GatewayClock
    /// How long an unpolled snapshot is kept.
    public let period: TimeInterval

    public init(transactions: any TransactionRunner, snapshots: any SnapshotStoring, clock: any GatewayClock, period: TimeInterval = 30 * 24 * 3600) {
        self.transactions = transactions
        self.snapshots = snapshots
        self.clock = clock
        self.period = period
    }

    /// Deletes the old snapshots; how many.
    public func run() async throws -> Int {
        let cutoff = clock.now().addingTimeInterval(-period)
        return try await transactions.write { [snapshots] db in try snapshots.prune(polledBefore: cutoff, in: db) }
    }

    /// Registers `gradebook.prune` and its hourly schedule.
    public func register(in registry: JobRegistry) throws {
        let retention = self
        try registry.registerHousekeeping(Self.prune) { _ = try await retention.run() }
    }
}

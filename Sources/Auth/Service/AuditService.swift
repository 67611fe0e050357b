public import Foundation
public import GatewayCore
public import GatewayHTTP
public import Logging
public import Storage

/// The audit log: every admin and operator write, recorded by the route guard
/// (``GatewayHTTP/AuditRecording``), listed at `GET /v1/admin/audit`, kept 400 days.
public struct AuditService: AuditRecording {
    let transactions: any TransactionRunner
    let store: any AuditStoring
    let clock: any GatewayClock
    let logger: Logger

    /// How long records are kept.
    public static let retention: TimeInterval = 400 * 86400

    public init(transactions: any TransactionRunner, store: any AuditStoring, clock: any GatewayClock, logger: Logger) {
        self.transactions = transactions
        self.store = store
        self.clock = clock
        self.logger = logger
    }

    public func record(_ entry: AuditEntry) async {
        let stamped = AuditEntry(
            at: clock.now(), accountID: entry.accountID, username: entry.username, role: entry.role, method: entry.method,
            route: entry.route, action: entry.action, target: entry.target, status: entry.status, arguments: entry.arguments
        )
        do {
            try await transactions.write { [store] db in try store.append(stamped, in: db) }
        } catch {
            logger.error(
                "audit record not written",
                metadata: ["action": "\(entry.action)", "account": "\(entry.accountID)", "status": "\(entry.status)", "error": "\(error)"]
            )
        }
    }

    public func list(_ filter: AuditFilter, before: Int64?, limit: Int) async throws -> [AuditRecord] {
        try await transactions.read { [store] db in try store.list(filter, before: before, limit: limit, in: db) }
    }

    /// Deletes records older than ``retention``.
    @discardableResult
    public func prune() async throws -> Int {
        let cutoff = clock.now().addingTimeInterval(-Self.retention)
        return try await transactions.write { [store] db in try store.prune(before: cutoff, in: db) }
    }
}

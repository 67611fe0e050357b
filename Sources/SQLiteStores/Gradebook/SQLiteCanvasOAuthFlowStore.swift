import Contracts
import Foundation
import GRDB
import Gradebook
import Storage
import SQLiteStorage

/// ``CanvasOAuthFlowStoring`` on SQLite.
struct SQLiteCanvasOAuthFlowStore: CanvasOAuthFlowStoring {
    init() {}

    static let columns = """
        flow_key, owner_account_id, source_id, return_to, expires_at, started_at, code_hash, sealed_grant, canvas_user_id, canvas_user_name,
        completes_by
        """

    static func decode(_ row: Row) -> CanvasOAuthFlow {
        let codeHash: Data? = row["code_hash"]
        let pending = codeHash.map {
            CanvasOAuthFlow.Pending(
                codeHash: $0, sealedGrant: row["sealed_grant"], canvasUserID: row["canvas_user_id"], canvasUserName: row["canvas_user_name"],
                completesBy: row["completes_by"]
            )
        }
        return CanvasOAuthFlow(
            key: row["flow_key"], ownerAccountID: row["owner_account_id"], sourceID: row["source_id"], returnTo: row["return_to"],
            expiresAt: row["expires_at"], startedAt: row["started_at"], pending: pending
        )
    }

    func insert(_ flow: CanvasOAuthFlow, in transaction: any StoreTransaction) throws {
        try transaction.sqlite().execute(
            sql: "INSERT INTO gradebook_oauth_flows (flow_key, owner_account_id, source_id, return_to, expires_at) VALUES (?, ?, ?, ?, ?)",
            arguments: [flow.key, flow.ownerAccountID, flow.sourceID, flow.returnTo, flow.expiresAt]
        )
    }

    func liveFlows(owner: Int64, now: Date, in transaction: any StoreTransaction) throws -> Int {
        try Int.fetchOne(
            transaction.sqlite(),
            sql: "SELECT count(*) FROM gradebook_oauth_flows WHERE owner_account_id = ? AND (expires_at > ? OR completes_by > ?)",
            arguments: [owner, now, now]
        ) ?? 0
    }

    func flow(key: Data, in transaction: any StoreTransaction) throws -> CanvasOAuthFlow? {
        try Row.fetchOne(transaction.sqlite(), sql: "SELECT \(Self.columns) FROM gradebook_oauth_flows WHERE flow_key = ?", arguments: [key])
            .map(Self.decode)
    }

    func markStarted(key: Data, at now: Date, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.execute(
            sql: "UPDATE gradebook_oauth_flows SET started_at = ? WHERE flow_key = ? AND started_at IS NULL AND expires_at > ?",
            arguments: [now, key, now]
        )
        return db.changesCount == 1
    }

    func setPending(key: Data, _ pending: CanvasOAuthFlow.Pending, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.execute(
            sql: """
                UPDATE gradebook_oauth_flows SET code_hash = ?, sealed_grant = ?, canvas_user_id = ?, canvas_user_name = ?, completes_by = ?
                WHERE flow_key = ? AND started_at IS NOT NULL AND code_hash IS NULL
                """,
            arguments: [pending.codeHash, pending.sealedGrant, pending.canvasUserID, pending.canvasUserName, pending.completesBy, key]
        )
        return db.changesCount == 1
    }

    func takePending(codeHash: Data, in transaction: any StoreTransaction) throws -> CanvasOAuthFlow? {
        try Row.fetchOne(
            transaction.sqlite(), sql: "DELETE FROM gradebook_oauth_flows WHERE code_hash = ? RETURNING \(Self.columns)", arguments: [codeHash]
        ).map(Self.decode)
    }

    func takeFinished(at now: Date, limit: Int, in transaction: any StoreTransaction) throws -> [CanvasOAuthFlow] {
        try Row.fetchAll(
            transaction.sqlite(),
            sql: """
                DELETE FROM gradebook_oauth_flows WHERE flow_key IN (
                    SELECT flow_key FROM gradebook_oauth_flows
                    WHERE (code_hash IS NULL AND expires_at <= ?) OR (code_hash IS NOT NULL AND completes_by <= ?) LIMIT ?
                ) RETURNING \(Self.columns)
                """,
            arguments: [now, now, limit]
        ).map(Self.decode)
    }
}

import Contracts
import Foundation
import Gradebook
import PostgresNIO
import Storage
import PostgresStorage

/// ``CanvasOAuthFlowStoring`` on PostgreSQL: a flow begun on one instance is started, called
/// back and completed on any.
struct PostgresCanvasOAuthFlowStore: CanvasOAuthFlowStoring {
    init() {}

    static let columns = """
        flow_key, owner_account_id, source_id, return_to, expires_at, started_at, code_hash, sealed_grant, canvas_user_id, canvas_user_name,
        completes_by
        """

    static func decode(_ row: PostgresRow) throws -> CanvasOAuthFlow {
        let (key, owner, source, returnTo, expiresAt, startedAt, codeHash, sealedGrant, userID, userName, completesBy) =
            try row.decode((Data, Int64, Int64, String, Date, Date?, Data?, String?, String?, String?, Date?).self)
        var pending: CanvasOAuthFlow.Pending?
        if let codeHash, let sealedGrant, let userID, let completesBy {
            pending = .init(codeHash: codeHash, sealedGrant: sealedGrant, canvasUserID: userID, canvasUserName: userName, completesBy: completesBy)
        }
        return CanvasOAuthFlow(
            key: key, ownerAccountID: owner, sourceID: source, returnTo: returnTo, expiresAt: expiresAt, startedAt: startedAt, pending: pending
        )
    }

    func insert(_ flow: CanvasOAuthFlow, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("""
            INSERT INTO gradebook_oauth_flows (flow_key, owner_account_id, source_id, return_to, expires_at)
            VALUES (\(flow.key), \(flow.ownerAccountID), \(flow.sourceID), \(flow.returnTo), \(flow.expiresAt))
            """)
    }

    func liveFlows(owner: Int64, now: Date, in transaction: any StoreTransaction) throws -> Int {
        guard let row = try transaction.postgres().query("""
            SELECT count(*)::bigint FROM gradebook_oauth_flows WHERE owner_account_id = \(owner) AND (expires_at > \(now) OR completes_by > \(now))
            """).first else { return 0 }
        return Int(try row.decode(Int64.self))
    }

    func flow(key: Data, in transaction: any StoreTransaction) throws -> CanvasOAuthFlow? {
        try transaction.postgres().query("SELECT \(unescaped: Self.columns) FROM gradebook_oauth_flows WHERE flow_key = \(key)")
            .first.map(Self.decode)
    }

    func markStarted(key: Data, at now: Date, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().execute("""
            UPDATE gradebook_oauth_flows SET started_at = \(now) WHERE flow_key = \(key) AND started_at IS NULL AND expires_at > \(now)
            """) == 1
    }

    func setPending(key: Data, _ pending: CanvasOAuthFlow.Pending, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().execute("""
            UPDATE gradebook_oauth_flows SET code_hash = \(pending.codeHash), sealed_grant = \(pending.sealedGrant),
                canvas_user_id = \(pending.canvasUserID), canvas_user_name = \(pending.canvasUserName), completes_by = \(pending.completesBy)
            WHERE flow_key = \(key) AND started_at IS NOT NULL AND code_hash IS NULL
            """) == 1
    }

    func takePending(codeHash: Data, in transaction: any StoreTransaction) throws -> CanvasOAuthFlow? {
        try transaction.postgres().query("DELETE FROM gradebook_oauth_flows WHERE code_hash = \(codeHash) RETURNING \(unescaped: Self.columns)")
            .first.map(Self.decode)
    }

    func takeFinished(at now: Date, limit: Int, in transaction: any StoreTransaction) throws -> [CanvasOAuthFlow] {
        try transaction.postgres().query("""
            DELETE FROM gradebook_oauth_flows WHERE flow_key IN (
                SELECT flow_key FROM gradebook_oauth_flows
                WHERE (code_hash IS NULL AND expires_at <= \(now)) OR (code_hash IS NOT NULL AND completes_by <= \(now)) LIMIT \(limit)
                FOR UPDATE SKIP LOCKED
            ) RETURNING \(unescaped: Self.columns)
            """).map(Self.decode)
    }
}

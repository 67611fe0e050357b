public import Auth
public import Contracts
public import Foundation
public import GatewayCore
import Jobs
import PostgresNIO
import Storage
import PostgresStorage

/// ``AuditStoring`` on PostgreSQL: `auth_audit_log`, appended to and read in the caller's
/// transaction.
public struct PostgresAuditStore: AuditStoring {
    public init() {}

    public func append(_ entry: AuditEntry, in transaction: any StoreTransaction) throws {
        let target = AuditRecord.targetJSON(entry.target)
        try transaction.postgres().execute("""
            INSERT INTO auth_audit_log (at, account_id, username, role, method, route, action, target, status, arguments)
            VALUES (\(entry.at.millisecondsSince1970), \(entry.accountID), \(entry.username), \(entry.role), \(entry.method), \(entry.route),
                \(entry.action), \(target), \(entry.status), \(entry.arguments))
            """)
    }

    public func list(_ filter: AuditFilter, before: Int64?, limit: Int, in transaction: any StoreTransaction) throws -> [AuditRecord] {
        let accountID = filter.actor.flatMap { Int64($0) }
        let username = accountID == nil ? filter.actor : nil
        let since = filter.since?.millisecondsSince1970
        return try transaction.postgres().query("""
            SELECT id, at, account_id, username, role, method, route, action, target, status, arguments FROM auth_audit_log
            WHERE (\(before)::bigint IS NULL OR id < \(before)::bigint)
              AND (\(accountID)::bigint IS NULL OR account_id = \(accountID)::bigint)
              AND (\(username)::text IS NULL OR username = \(username)::text)
              AND (\(filter.action)::text IS NULL OR action = \(filter.action)::text)
              AND (\(since)::bigint IS NULL OR at >= \(since)::bigint)
            ORDER BY id DESC LIMIT \(limit)
            """).map { row in
            let (id, at, account, name, role, method, route, action, target, status, arguments) =
                try row.decode((Int64, Int64, Int64, String, String, String, String, String, String, Int, String?).self)
            return AuditRecord(id: id, entry: AuditEntry(
                at: Date(millisecondsSince1970: at), accountID: account, username: name, role: role, method: method, route: route,
                action: action, target: AuditRecord.target(fromJSON: target), status: status, arguments: arguments
            ))
        }
    }

    public func prune(before: Date, in transaction: any StoreTransaction) throws -> Int {
        try transaction.postgres().execute("DELETE FROM auth_audit_log WHERE at < \(before.millisecondsSince1970)")
    }
}

public import Auth
public import Contracts
public import Foundation
import GRDB
public import GatewayCore
import Jobs
import Storage
import SQLiteStorage

/// ``AuditStoring`` on SQLite: `auth_audit_log`, appended to and read in the caller's
/// transaction.
public struct SQLiteAuditStore: AuditStoring {
    public init() {}

    public func append(_ entry: AuditEntry, in transaction: any StoreTransaction) throws {
        try transaction.sqlite().execute(
            sql: """
                INSERT INTO auth_audit_log (at, account_id, username, role, method, route, action, target, status, arguments)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                entry.at.millisecondsSince1970, entry.accountID, entry.username, entry.role, entry.method, entry.route, entry.action,
                AuditRecord.targetJSON(entry.target), entry.status, entry.arguments,
            ]
        )
    }

    public func list(_ filter: AuditFilter, before: Int64?, limit: Int, in transaction: any StoreTransaction) throws -> [AuditRecord] {
        var clauses: [String] = []
        var arguments: [(any DatabaseValueConvertible)?] = []
        if let before { clauses.append("id < ?"); arguments.append(before) }
        if let actor = filter.actor {
            if let id = Int64(actor) { clauses.append("account_id = ?"); arguments.append(id) } else { clauses.append("username = ?"); arguments.append(actor) }
        }
        if let action = filter.action { clauses.append("action = ?"); arguments.append(action) }
        if let since = filter.since { clauses.append("at >= ?"); arguments.append(since.millisecondsSince1970) }
        arguments.append(limit)
        let sql = "SELECT * FROM auth_audit_log" + (clauses.isEmpty ? "" : " WHERE " + clauses.joined(separator: " AND ")) + " ORDER BY id DESC LIMIT ?"
        return try Row.fetchAll(try transaction.sqlite(), sql: sql, arguments: StatementArguments(arguments)).map { row in
            AuditRecord(id: row["id"], entry: AuditEntry(
                at: Date(millisecondsSince1970: row["at"]), accountID: row["account_id"], username: row["username"], role: row["role"],
                method: row["method"], route: row["route"], action: row["action"], target: AuditRecord.target(fromJSON: row["target"]),
                status: row["status"], arguments: row["arguments"]
            ))
        }
    }

    public func prune(before: Date, in transaction: any StoreTransaction) throws -> Int {
        let db = try transaction.sqlite()
        try db.execute(sql: "DELETE FROM auth_audit_log WHERE at < ?", arguments: [before.millisecondsSince1970])
        return db.changesCount
    }
}

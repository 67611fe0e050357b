public import Contracts
public import Foundation
public import GatewayCore


/// An audit record as `GET /v1/admin/audit` answers it.
public struct AuditRecord: Encodable, Sendable, Equatable {
    public struct Actor: Encodable, Sendable, Equatable {
        public let accountId: Int64
        public let username: String
        public let role: String
    }

    public let id: Int64
    public let at: Date
    public let actor: Actor
    public let method: String
    public let route: String
    public let action: String
    public let target: [String: String]
    public let status: Int
    /// `{"body": …, "query": …}` with secrets redacted; null when the write had neither.
    public let arguments: JSONValue?

    public init(id: Int64, entry: AuditEntry) {
        self.id = id
        at = entry.at
        actor = Actor(accountId: entry.accountID, username: entry.username, role: entry.role)
        method = entry.method
        route = entry.route
        action = entry.action
        target = entry.target
        status = entry.status
        arguments = entry.arguments.flatMap { try? JSONDecoder().decode(JSONValue.self, from: Data($0.utf8)) }
            ?? entry.arguments.map { .object(["clipped": .string($0)]) } // cut at 8 KiB: no longer JSON
    }

    public func encode(to encoder: any Encoder) throws {
        enum K: String, CodingKey { case id, at, actor, method, route, action, target, status, arguments }
        var c = encoder.container(keyedBy: K.self)
        try c.encode(id, forKey: .id)
        try c.encode(at, forKey: .at)
        try c.encode(actor, forKey: .actor)
        try c.encode(method, forKey: .method)
        try c.encode(route, forKey: .route)
        try c.encode(action, forKey: .action)
        try c.encode(target, forKey: .target)
        try c.encode(status, forKey: .status)
        try c.encode(arguments, forKey: .arguments)
    }

    /// `target` as its column keeps it (JSON text, keys sorted).
    public static func targetJSON(_ target: [String: String]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(target)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    public static func target(fromJSON text: String) -> [String: String] {
        (try? JSONDecoder().decode([String: String].self, from: Data(text.utf8))) ?? [:]
    }
}

/// What the audit list is narrowed to.
public struct AuditFilter: Sendable, Equatable {
    /// A username, or an account id.
    public var actor: String?
    public var action: String?
    public var since: Date?

    public init(actor: String? = nil, action: String? = nil, since: Date? = nil) {
        self.actor = actor
        self.action = action
        self.since = since
    }
}

/// The audit log's table (`auth_audit_log`), append-only: no method edits or deletes a record
/// but ``prune(before:in:)``.
public protocol AuditStoring: Sendable {
    func append(_ entry: AuditEntry, in transaction: any StoreTransaction) throws
    /// Newest first, before id `before`.
    func list(_ filter: AuditFilter, before: Int64?, limit: Int, in transaction: any StoreTransaction) throws -> [AuditRecord]
    /// Deletes the records older than `before`; returns how many.
    func prune(before: Date, in transaction: any StoreTransaction) throws -> Int
}

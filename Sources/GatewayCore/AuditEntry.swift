public import Foundation

/// One admin or operator write as the audit log keeps it: who, when, what (method, route
/// template and action name), on what (the path parameters), with what arguments (secrets
/// redacted) and how it ended (the status).
public struct AuditEntry: Sendable, Equatable {
    public let at: Date
    public let accountID: Int64
    public let username: String
    public let role: String
    public let method: String
    /// The route template, `/v1/admin/jobs/:id/retry`.
    public let route: String
    /// `jobs.retry`, `queues.update`, `accounts.create` (the route guard names it).
    public let action: String
    /// The path parameters, by name.
    public let target: [String: String]
    public let status: Int
    /// The JSON body with secrets redacted, and the query string, clipped; nil without either.
    public let arguments: String?

    public init(
        at: Date, accountID: Int64, username: String, role: String, method: String, route: String, action: String,
        target: [String: String], status: Int, arguments: String?
    ) {
        self.at = at
        self.accountID = accountID
        self.username = username
        self.role = role
        self.method = method
        self.route = route
        self.action = action
        self.target = target
        self.status = status
        self.arguments = arguments
    }
}

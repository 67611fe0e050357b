public import Foundation
public import GatewayCore

/// Where the route guard records admin writes (the Auth module's audit log). Recording never
/// fails a request: an implementation logs its own errors.
public protocol AuditRecording: Sendable {
    func record(_ entry: AuditEntry) async
}

/// The audit log's rules, in one place: which routes are recorded, their action names, and the
/// redaction of their arguments.
public enum AuditLog {
    /// Writes under `/v1/admin/` are recorded.
    public static func records(method: String, path: String) -> Bool {
        ["POST", "PUT", "PATCH", "DELETE"].contains(method) && (path.hasPrefix("v1/admin/") || path.hasPrefix("/v1/admin/"))
    }

    /// `POST /v1/admin/jobs/:id/retry` is `jobs.retry`; a route ending at a collection or an
    /// item is named by its method: `jobs.create` (POST), `terms.replace` (PUT),
    /// `queues.update` (PATCH), `jobs.delete` (DELETE).
    public static func action(method: String, route: String) -> String {
        let parts = route.split(separator: "/").map(String.init)
        let rest = Array(parts.drop { $0 != "admin" }.dropFirst())
        let words = rest.filter { !$0.hasPrefix(":") && !$0.hasPrefix("{") }
        let endsAtItemOrCollection = rest.last.map { $0.hasPrefix(":") || $0.hasPrefix("{") } ?? true || rest.count == 1
        guard endsAtItemOrCollection else { return words.joined(separator: ".") }
        let verb = switch method {
        case "POST": "create"
        case "PUT": "replace"
        case "PATCH": "update"
        default: "delete"
        }
        return (words + [verb]).joined(separator: ".")
    }

    /// The recorded arguments: at most this many bytes.
    public static let argumentsLimit = 8192

    /// `value` with its secrets redacted (``SecretRedaction``, the list the console applies to
    /// job arguments too).
    public static func redacted(_ value: JSONValue) -> JSONValue { SecretRedaction.redacted(value) }

    /// The arguments of a write: its JSON body redacted (a body that is not JSON is only
    /// measured), and its query string with secret parameters redacted.
    public static func arguments(body: Data, query: String?) -> String? {
        var object: [String: JSONValue] = [:]
        if !body.isEmpty {
            if let json = try? JSONDecoder().decode(JSONValue.self, from: body) {
                object["body"] = redacted(json)
            } else {
                object["body"] = .string("[\(body.count) bytes, not JSON]")
            }
        }
        if let query, !query.isEmpty {
            var pairs: [String: JSONValue] = [:]
            for pair in query.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                let name = parts.first?.removingPercentEncoding ?? ""
                let value = parts.count > 1 ? (parts[1].removingPercentEncoding ?? parts[1]) : ""
                pairs[name] = SecretRedaction.isSecret(name) ? .string(SecretRedaction.placeholder) : .string(value)
            }
            object["query"] = .object(pairs)
        }
        guard !object.isEmpty else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(JSONValue.object(object)) else { return nil }
        guard data.count > argumentsLimit else { return String(decoding: data, as: UTF8.self) }
        return String(decoding: data.prefix(argumentsLimit), as: UTF8.self) + "…"
    }
}

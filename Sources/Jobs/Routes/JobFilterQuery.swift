import Foundation
import GatewayCore
public import GatewayHTTP
public import Hummingbird

/// The operators' job filter as the list's query string and as a bulk action's `filter`
/// object: `state`, `queue`, `kind`, `ids`, `args.<path>`, `since`, `until`, `error`,
/// `minAttempt`. Each bad value is a 400 naming it.
enum JobFilterQuery {
    /// The filter of `GET /v1/admin/jobs`'s query.
    static func filter(from request: Request) throws -> JobFilter {
        var filter = JobFilter()
        let query = request.uri.queryParameters
        if let raw = query["state"] { filter.states = try JobsAdminRoutes.states(String(raw)) }
        filter.queue = query["queue"].map(String.init)
        filter.kind = query["kind"].map(String.init)
        if let raw = query["ids"] { filter.ids = try ids(String(raw).split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }) }
        for (key, value) in query where key.hasPrefix("args.") {
            filter.arguments.append(try match(path: String(key.dropFirst("args.".count)), value: String(value), field: String(key)))
        }
        try checkCount(filter.arguments, field: "args")
        if let raw = query["since"] { filter.scheduledSince = try date(String(raw), field: "since") }
        if let raw = query["until"] { filter.scheduledUntil = try date(String(raw), field: "until") }
        if let raw = query["error"] { filter.errorContains = try errorText(String(raw), field: "error") }
        if let raw = query["minAttempt"] { filter.minAttempt = try attempts(String(raw), field: "minAttempt") }
        return filter
    }

    /// A bulk action's `filter` object (the same keys; `args` an object of dotted paths to
    /// scalar values, `ids` an array).
    struct Body: Decodable {
        let state: String?
        let queue: String?
        let kind: String?
        let ids: [Int64]?
        let args: [String: JSONValue]?
        let since: String?
        let until: String?
        let error: String?
        let minAttempt: Int?

        func filter() throws -> JobFilter {
            var filter = JobFilter(queue: queue, kind: kind)
            if let state { filter.states = try JobsAdminRoutes.states(state) }
            if let ids {
                guard ids.count <= JobFilter.maximumIDs else { throw Problem.validation("At most \(JobFilter.maximumIDs) ids.", field: "filter.ids") }
                filter.ids = ids
            }
            for (path, value) in (args ?? [:]).sorted(by: { $0.key < $1.key }) {
                let text: String
                switch value {
                case .string(let string): text = string
                case .int(let number): text = String(number)
                case .double(let number): text = String(number)
                case .bool(let flag): text = flag ? "true" : "false"
                case .null: text = "null"
                case .array, .object:
                    throw Problem.validation("args.\(path) must be a string, number, boolean or null.", field: "filter.args.\(path)")
                }
                filter.arguments.append(try match(path: path, value: text, field: "filter.args.\(path)"))
            }
            try checkCount(filter.arguments, field: "filter.args")
            filter.scheduledSince = try since.map { try date($0, field: "filter.since") }
            filter.scheduledUntil = try until.map { try date($0, field: "filter.until") }
            filter.errorContains = try error.map { try errorText($0, field: "filter.error") }
            if let minAttempt {
                guard minAttempt >= 0 else { throw Problem.validation("minAttempt is 0 or more.", field: "filter.minAttempt") }
                filter.minAttempt = minAttempt
            }
            return filter
        }
    }

    static func ids(_ parts: [String]) throws -> [Int64] {
        guard parts.count <= JobFilter.maximumIDs else { throw Problem.badRequest("At most \(JobFilter.maximumIDs) ids.", invalidFields: ["ids"]) }
        return try parts.filter { !$0.isEmpty }.map { part in
            guard let id = Int64(part), id > 0 else { throw Problem.badRequest("ids are positive integers separated by commas.", invalidFields: ["ids"]) }
            return id
        }
    }

    static func match(path: String, value: String, field: String) throws -> ArgumentMatch {
        let keys = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !keys.isEmpty, keys.count <= JobFilter.maximumPathDepth, keys.allSatisfy({ !$0.isEmpty && $0.count <= 100 }) else {
            throw Problem.badRequest("\(field): a path of 1 to \(JobFilter.maximumPathDepth) keys, such as args.gradebookAccountId.", invalidFields: [field])
        }
        guard value.count <= 500 else { throw Problem.badRequest("\(field): a value of at most 500 characters.", invalidFields: [field]) }
        return ArgumentMatch(path: keys, value: value)
    }

    static func checkCount(_ matches: [ArgumentMatch], field: String) throws {
        guard matches.count <= JobFilter.maximumArgumentMatches else {
            throw Problem.badRequest("At most \(JobFilter.maximumArgumentMatches) args. filters.", invalidFields: [field])
        }
    }

    static func date(_ raw: String, field: String) throws -> Date {
        guard let date = try? Date(raw, strategy: .iso8601) else {
            throw Problem.badRequest("\(field) is an RFC 3339 time such as 2026-12-01T09:00:00Z.", invalidFields: [field])
        }
        return date
    }

    static func errorText(_ raw: String, field: String) throws -> String {
        guard !raw.isEmpty, raw.count <= JobFilter.maximumErrorText else {
            throw Problem.badRequest("\(field) is 1 to \(JobFilter.maximumErrorText) characters.", invalidFields: [field])
        }
        return raw
    }

    static func attempts(_ raw: String, field: String) throws -> Int {
        guard let value = Int(raw), value >= 0, value <= 1_000 else {
            throw Problem.badRequest("\(field) is a whole number from 0 to 1000.", invalidFields: [field])
        }
        return value
    }
}

import Catalog
import NIOFoundationEssentialsCompat
import GatewayHTTP
import Foundation
import GatewayCore
import Hummingbird

/// A parameter is missing or has the wrong type: the SDSU protocol answers 400 with a JSON
/// body (`{"error": "..."}`).
struct SDSUBadRequest: Error, Sendable {
    let message: String
    init(_ message: String) { self.message = message }
}

/// The parameters of one SDSU protocol request: the query string of a GET, or the JSON
/// object of a POST (a POST without a body falls back to its query string).
///
/// Lenient where real clients need it: a numeric string is accepted for an integer, a number
/// for a time, and a nine-digit number for a red id.
struct SDSUParameters: Sendable {
    private enum Source: Sendable {
        case query([String: String])
        case json([String: JSONValue])
    }

    private let source: Source

    static func read(_ request: Request, context: GatewayContext) async throws -> SDSUParameters {
        if request.method == .post {
            let buffer = try await request.body.collect(upTo: context.maxUploadSize)
            if buffer.readableBytes > 0 {
                let value: JSONValue
                do {
                    value = try JSONDecoder().decode(JSONValue.self, from: Data(buffer: buffer))
                } catch {
                    throw SDSUBadRequest("The body is not valid JSON")
                }
                guard case .object(let object) = value else { throw SDSUBadRequest("The body must be a JSON object") }
                return SDSUParameters(source: .json(object))
            }
        }
        var query: [String: String] = [:]
        for (key, value) in request.uri.queryParameters where query[String(key)] == nil {
            query[String(key)] = String(value)
        }
        return SDSUParameters(source: .query(query))
    }

    /// Whether the parameters came as a JSON body.
    var isJSON: Bool {
        if case .json = source { return true }
        return false
    }

    func has(_ name: String) -> Bool {
        switch source {
        case .query(let query): query[name] != nil
        case .json(let object): object[name] != nil
        }
    }

    /// A required integer (`subjectid`, `classid`, `courseid`).
    func int(_ name: String) throws -> Int64 {
        guard let value = try optionalInt(name) else { throw SDSUBadRequest("Missing parameter \(name)") }
        return value
    }

    func optionalInt(_ name: String) throws -> Int64? {
        switch source {
        case .query(let query):
            guard let raw = query[name] else { return nil }
            guard let value = Int64(raw.trimmingSpaces()) else { throw SDSUBadRequest("Parameter \(name) must be an integer") }
            return value
        case .json(let object):
            switch object[name] {
            case nil, .null: return nil
            case .int(let value): return value
            case .string(let raw):
                guard let value = Int64(raw.trimmingSpaces()) else { throw SDSUBadRequest("Parameter \(name) must be an integer") }
                return value
            default: throw SDSUBadRequest("Parameter \(name) must be an integer")
            }
        }
    }

    /// A required string (`password`, `firstname`, ...).
    func string(_ name: String) throws -> String {
        guard let value = try optionalString(name, numbersAllowed: false) else { throw SDSUBadRequest("Missing parameter \(name)") }
        return value
    }

    /// An optional string; with `numbersAllowed`, a JSON number is read as its digits (times
    /// sent as `1730`).
    func optionalString(_ name: String, numbersAllowed: Bool = true) throws -> String? {
        switch source {
        case .query(let query): return query[name]
        case .json(let object):
            switch object[name] {
            case nil, .null: return nil
            case .string(let value): return value
            case .int(let value) where numbersAllowed: return String(value)
            default: throw SDSUBadRequest("Parameter \(name) must be a string")
            }
        }
    }

    /// A red id: a string, or a JSON number with nine digits.
    func redID(_ name: String = "redid") throws -> String {
        if case .json(let object) = source, case .int(let value) = object[name] {
            let digits = String(value)
            guard value >= 0, digits.count == 9 else { throw SDSUBadRequest("Parameter \(name) must be a string of nine digits") }
            return digits
        }
        return try string(name)
    }

    /// The most distinct ids a list parameter may carry: an answer never grows with a padded
    /// request (`classdetails` with 200,000 copies of one id once made 100 MB of JSON).
    static let maximumListLength = 500

    /// A required list of integers (`subjectids`, `classids`): comma-separated in a query, a
    /// JSON array in a body (a bare number is as wrong a type as a string: 400, seed 000's
    /// "JSON array of integers"). Repeated ids count once (first occurrence first); more than
    /// ``maximumListLength`` distinct ids answer the protocol's `{"error": ...}`.
    func intList(_ name: String) throws -> [Int64] {
        var seen = Set<Int64>()
        let ids = try rawIntList(name).filter { seen.insert($0).inserted }
        guard ids.count <= Self.maximumListLength else {
            throw SDSUBadRequest("Parameter \(name) may list at most \(Self.maximumListLength) ids")
        }
        return ids
    }

    private func rawIntList(_ name: String) throws -> [Int64] {
        switch source {
        case .query(let query):
            guard let raw = query[name] else { throw SDSUBadRequest("Missing parameter \(name)") }
            let parts = raw.split(separator: ",").map { Int64($0.trimmingSpaces()) }
            guard !parts.contains(nil) else { throw SDSUBadRequest("Parameter \(name) must be a list of integers") }
            return parts.compactMap { $0 }
        case .json(let object):
            switch object[name] {
            case nil, .null: throw SDSUBadRequest("Missing parameter \(name)")
            case .array(let items):
                return try items.map { item in
                    switch item {
                    case .int(let value): return value
                    case .string(let raw):
                        guard let value = Int64(raw) else { throw SDSUBadRequest("Parameter \(name) must be a list of integers") }
                        return value
                    default: throw SDSUBadRequest("Parameter \(name) must be a list of integers")
                    }
                }
            default: throw SDSUBadRequest("Parameter \(name) must be a list of integers")
            }
        }
    }
}

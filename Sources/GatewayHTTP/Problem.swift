import NIOFoundationEssentialsCompat
public import Foundation
@_exported import HTTPTypes
public import Hummingbird

/// An RFC 9457 problem: the one error shape every `/v1` route answers with.
///
/// `type` is a stable identifier (a relative URI under `/problems/`) that clients can switch on;
/// `title` is the short human summary of that type; `detail` explains this occurrence.
/// Extra members (for example `retryAfterSeconds` or `invalidFields`) go in `extensions`.
public struct Problem: Error, Sendable, HTTPResponseError {
    public var type: String
    public var title: String
    public var status: HTTPResponse.Status
    public var detail: String?
    public var extensions: [String: ProblemValue]
    /// Extra headers for the response (for example `Retry-After` or `WWW-Authenticate`).
    public var headers: HTTPFields

    public init(
        type: String,
        title: String,
        status: HTTPResponse.Status,
        detail: String? = nil,
        extensions: [String: ProblemValue] = [:],
        headers: HTTPFields = [:]
    ) {
        self.type = type.hasPrefix("/") || type.contains(":") ? type : "/problems/\(type)"
        self.title = title
        self.status = status
        self.detail = detail
        self.extensions = extensions
        self.headers = headers
    }

    /// The media type of every problem document.
    public static let mediaType = "application/problem+json"

    /// Encodes the document; `instance` is the request path it answers.
    public func body(instance: String?, requestID: String?) -> Data {
        var object: [String: ProblemValue] = extensions
        object["type"] = .string(type)
        object["title"] = .string(title)
        object["status"] = .int(Int(status.code))
        if let detail { object["detail"] = .string(detail) }
        if let instance { object["instance"] = .string(instance) }
        if let requestID { object["requestId"] = .string(requestID) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(object)) ?? Data(#"{"title":"Internal Server Error","status":500}"#.utf8)
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        response(instance: request.uri.path, requestID: nil)
    }

    /// Builds the `application/problem+json` response.
    public func response(instance: String?, requestID: String?) -> Response {
        var fields = headers
        fields[.contentType] = Problem.mediaType
        if let requestID { fields[.requestID] = requestID }
        return Response(
            status: status,
            headers: fields,
            body: .init(byteBuffer: ByteBuffer(data: body(instance: instance, requestID: requestID)))
        )
    }
}

extension Problem: CustomStringConvertible {
    /// The detail, or the title: what a log line or a job's error history shows.
    public var description: String { detail ?? title }
}

/// A JSON value that can sit in a problem document's extension members.
public enum ProblemValue: Sendable, Encodable, Equatable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case array([ProblemValue])
    case object([String: ProblemValue])

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let v): try container.encode(v)
        case .int(let v): try container.encode(v)
        case .double(let v): try container.encode(v)
        case .bool(let v): try container.encode(v)
        case .array(let v): try container.encode(v)
        case .object(let v): try container.encode(v)
        }
    }
}

extension HTTPField.Name {
    /// `X-Request-Id`: echoed on every response and attached to every log line.
    public static let requestID = HTTPField.Name("X-Request-Id")!
    public static let retryAfter = HTTPField.Name("Retry-After")!
}

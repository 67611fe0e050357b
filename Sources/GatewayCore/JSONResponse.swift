import Foundation
import HTTPTypes
import Hummingbird

/// JSON coding used by every v1 route: ISO 8601 dates, sorted keys for stable output.
public enum GatewayJSON {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ISO8601.string(from: date))
        }
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    /// A JSON response with the given status.
    public static func response(
        _ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]
    ) throws -> Response {
        let data = try encoder().encode(value)
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(data: data)))
    }

    /// Decodes a JSON request body (bounded by the context's upload limit) into `type`,
    /// answering a 400 problem that names the offending field when it does not fit.
    public static func decode<T: Decodable>(
        _ type: T.Type, from request: Request, context: GatewayContext
    ) async throws -> T {
        let buffer = try await request.body.collect(upTo: context.maxUploadSize)
        guard buffer.readableBytes > 0 else { throw Problem.badRequest("The request needs a JSON body.") }
        do {
            return try decoder().decode(T.self, from: Data(buffer: buffer))
        } catch let error as DecodingError {
            throw Problem.badRequest(describe(error), invalidFields: field(of: error).map { [$0] } ?? [])
        } catch {
            throw Problem.badRequest("The body is not valid JSON.")
        }
    }

    static func path(_ codingPath: [any CodingKey]) -> String {
        codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }

    static func field(of error: DecodingError) -> String? {
        switch error {
        case .keyNotFound(let key, let ctx): path(ctx.codingPath + [key])
        case .typeMismatch(_, let ctx), .valueNotFound(_, let ctx), .dataCorrupted(let ctx):
            ctx.codingPath.isEmpty ? nil : path(ctx.codingPath)
        @unknown default: nil
        }
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let ctx): "Missing field '\(path(ctx.codingPath + [key]))'."
        case .typeMismatch(let type, let ctx): "Field '\(path(ctx.codingPath))' should be \(typeName(type))."
        case .valueNotFound(let type, let ctx): "Field '\(path(ctx.codingPath))' should be \(typeName(type)), not null."
        case .dataCorrupted(let ctx):
            ctx.codingPath.isEmpty ? "The body is not valid JSON." : "Field '\(path(ctx.codingPath))' is invalid."
        @unknown default: "The body does not match the expected shape."
        }
    }

    static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int64.Type, is Int32.Type: "an integer"
        case is Double.Type: "a number"
        case is Bool.Type: "a boolean"
        default: "\(type)"
        }
    }
}

/// ISO 8601 with fractional seconds dropped: the one timestamp format of the API.
public enum ISO8601 {
    public static func string(from date: Date) -> String {
        date.formatted(.iso8601)
    }
}

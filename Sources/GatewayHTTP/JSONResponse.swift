import NIOFoundationEssentialsCompat
public import GatewayCore
import Foundation
public import HTTPTypes
public import Hummingbird

extension GatewayJSON {
    /// A JSON response with the given status.
    public static func response(
        _ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]
    ) throws -> Response {
        let data = try sharedEncoder.encode(value)
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

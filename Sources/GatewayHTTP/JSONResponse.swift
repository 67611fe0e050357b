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
        let data = Data(buffer: buffer)
        do {
            return try decoder().decode(T.self, from: data)
        } catch {
            let explanation = DecodingExplanation(error, decoding: data)
            if explanation.outOfRange { throw Problem.validation(explanation.detail, field: explanation.field) }
            throw Problem.badRequest(explanation.detail, invalidFields: explanation.field.map { [$0] } ?? [])
        }
    }
}

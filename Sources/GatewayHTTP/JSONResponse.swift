import NIOFoundationEssentialsCompat
public import GatewayCore
public import Foundation
import Crypto
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
        if status == .ok, fields[.eTag] == nil { fields[.eTag] = entityTag(of: data) }
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(data: data)))
    }

    /// One page of a list, with `Link: <...>; rel="next"` (RFC 8288) when there is a next page:
    /// the request's own path and query with `cursor` set to the page's ``Page/nextCursor``.
    public static func response<Item>(page: Page<Item>, for request: Request) throws -> Response {
        try response(page, nextCursor: page.nextCursor, for: request)
    }

    /// A JSON answer that is one page of a list inside a larger value (its `nextCursor` given
    /// apart), with the same `Link` header as ``response(page:for:)``.
    public static func response(_ value: some Encodable, nextCursor: String?, for request: Request) throws -> Response {
        var headers = HTTPFields()
        if let next = nextCursor { headers[HTTPField.Name("Link")!] = "<\(nextPageTarget(request, cursor: next))>; rel=\"next\"" }
        return try response(value, headers: headers)
    }

    /// The request's path and query with `cursor` replaced (every other parameter kept in order).
    static func nextPageTarget(_ request: Request, cursor: String) -> String {
        var components = URLComponents()
        components.percentEncodedPath = request.uri.path
        var items = (URLComponents(string: request.uri.description)?.queryItems ?? []).filter { $0.name != "cursor" }
        items.append(URLQueryItem(name: "cursor", value: cursor))
        components.queryItems = items
        return components.string ?? request.uri.path
    }

    /// A strong entity tag for these bytes: the first 128 bits of their SHA-256, base64url.
    /// Equal answers get equal tags on every instance; any change of the bytes changes it.
    public static func entityTag(of data: Data) -> String {
        "\"\(Base64URL.encode(Data(SHA256.hash(data: data).prefix(16))))\""
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

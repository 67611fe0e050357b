import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A protocol answer before it becomes a `Response`: faults need its status and bytes.
struct ProtocolResponse {
    var status: HTTPResponse.Status
    var contentType: String
    var body: [UInt8]
    var headers: HTTPFields = [:]

    static let realm = "Cal Poly Gradebook (simulator)"

    /// 200 (or `status`) with a JSON document.
    static func json(_ data: Data, status: HTTPResponse.Status = .ok) -> ProtocolResponse {
        ProtocolResponse(status: status, contentType: "application/json", body: Array(data))
    }

    /// A JSON string, as the real server answered errors and permission failures.
    static func jsonString(_ text: String, status: HTTPResponse.Status = .ok) -> ProtocolResponse {
        let data = (try? WireJSON.encode(text)) ?? Data("\"\"".utf8)
        return json(data, status: status)
    }

    static func text(_ text: String, status: HTTPResponse.Status = .ok, contentType: String = "text/plain") -> ProtocolResponse {
        ProtocolResponse(status: status, contentType: contentType, body: Array(text.utf8))
    }

    /// 401 with a Basic challenge.
    static func unauthorized() -> ProtocolResponse {
        var response = jsonString("Authorization required", status: .unauthorized)
        response.headers[.wwwAuthenticate] = "Basic realm=\"\(realm)\""
        return response
    }

    /// A complete response: `Content-Type`, `Content-Length` and the whole body.
    func response() -> Response {
        response(body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// A response with these headers and another body.
    func response(body: ResponseBody) -> Response {
        var fields = headers
        fields[.contentType] = contentType
        return Response(status: status, headers: fields, body: body)
    }
}

public import Foundation
public import HTTPTypes
public import HummingbirdTesting
import NIOCore

extension TestClientProtocol {
    public func json(
        _ method: HTTPRequest.Method, _ uri: String, body: String? = nil, token: String? = nil, headers extra: HTTPFields = [:]
    ) async throws -> HTTPReply {
        var headers = extra
        if let token { headers[.authorization] = "Bearer \(token)" }
        if body != nil { headers[.contentType] = "application/json" }
        return try await execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }) { response in
            HTTPReply(status: response.status, headers: response.headers, body: String(buffer: response.body))
        }
    }
}

/// A response with its body read, so assertions can run outside the client closure.
public struct HTTPReply: Sendable {
    public let status: HTTPResponse.Status
    public let headers: HTTPFields
    public let body: String

    public init(status: HTTPResponse.Status, headers: HTTPFields, body: String) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public var object: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
    }

    public var contentType: String? { headers[.contentType] }
}

// The generated client (Generated/, from openapi/openapi.yaml by scripts/generate-client.sh) is
// `Client`, with one method per operation named by its operationId, and the `Components` and
// `Operations` types. This file is the one written by hand: the spec's bearer authentication,
// which swift-openapi-generator leaves to a middleware.
public import Foundation
public import HTTPTypes
public import OpenAPIRuntime

/// Sends `Authorization: Bearer <token>` with every request of the ``Client`` it is given to
/// (`Client(serverURL:transport:middlewares:)`), from the token `issueToken` answered.
/// A request that already carries an `Authorization` header keeps it.
public struct BearerToken: ClientMiddleware {
    private let token: @Sendable () async throws -> String?

    /// The same token on every request.
    public init(_ token: String) {
        self.token = { token }
    }

    /// The token at the time of each request (one that is renewed); nil sends none.
    public init(provider: @escaping @Sendable () async throws -> String?) {
        self.token = provider
    }

    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if request.headerFields[.authorization] == nil, let token = try await token() {
            request.headerFields[.authorization] = "Bearer \(token)"
        }
        return try await next(request, body, baseURL)
    }
}

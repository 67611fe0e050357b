public import GatewayHTTP
import Foundation
public import GatewayCore
public import Hummingbird

/// Resolves `Authorization: Bearer <token>` and `Authorization: Basic <base64>` to an identity.
public struct TokenAuthenticator: Authenticator {
    let service: AuthService
    /// With campus sign-in, a bearer token that is a JWT is checked as the provider's access
    /// token (``CampusSignIn/identity(accessToken:)``).
    let campus: CampusSignIn?

    public init(service: AuthService, campus: CampusSignIn? = nil) {
        self.service = service
        self.campus = campus
    }

    public func authenticate(_ request: Request, context: GatewayContext) async throws -> Identity? {
        guard let header = request.headers[.authorization] else { return nil }
        if let token = Self.bearer(header) {
            if let campus, Self.looksLikeJWT(token) {
                guard let identity = await campus.identity(accessToken: token) else {
                    throw Problem.unauthenticated("The access token is invalid, expired or not for this API.")
                }
                return identity
            }
            guard let identity = try await service.identity(bearer: token) else {
                throw Problem.unauthenticated("The access token is invalid, expired or revoked.")
            }
            return identity
        }
        if let (username, password) = Self.basic(header) {
            let account = try await service.verifyCredentials(
                username: username, password: password, clientAddress: context.clientAddress
            )
            return account.identity
        }
        throw Problem.unauthenticated("Use 'Authorization: Bearer <token>' or HTTP Basic.")
    }

    /// Three base64url parts: a JWS in compact form (gateway tokens start with `cgt_` and have
    /// no dots). At most 8 KiB is considered.
    static func looksLikeJWT(_ token: String) -> Bool {
        token.utf8.count <= 8192 && !token.hasPrefix("cgt_") && token.split(separator: ".", omittingEmptySubsequences: false).count == 3
    }

    static func bearer(_ header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }

    /// Splits a Basic header into username and password (RFC 7617).
    public static func basic(_ header: String) -> (String, String)? {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic",
            let data = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)),
            let decoded = String(data: data, encoding: .utf8),
            let colon = decoded.firstIndex(of: ":")
        else { return nil }
        return (String(decoded[..<colon]), String(decoded[decoded.index(after: colon)...]))
    }
}

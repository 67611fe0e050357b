public import Foundation

/// The parts of an OpenID provider's discovery document (OpenID Connect Discovery 1.0, §3) the
/// gateway uses.
public struct ProviderMetadata: Sendable, Equatable, Decodable {
    public var issuer: String
    public var authorizationEndpoint: URL
    public var tokenEndpoint: URL
    public var jwksURI: URL
    /// How the provider accepts client credentials at the token endpoint; absent means
    /// `client_secret_basic` (§3, `token_endpoint_auth_methods_supported`).
    public var tokenEndpointAuthMethods: [String]?

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case jwksURI = "jwks_uri"
        case tokenEndpointAuthMethods = "token_endpoint_auth_methods_supported"
    }

    /// Whether the client secret goes in the form body rather than HTTP Basic.
    public var postsClientSecret: Bool {
        guard let methods = tokenEndpointAuthMethods else { return false }
        return !methods.contains("client_secret_basic") && methods.contains("client_secret_post")
    }
}

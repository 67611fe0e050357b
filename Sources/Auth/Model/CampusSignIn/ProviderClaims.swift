public import Foundation
public import GatewayCore
public import JWTKit

/// The claims of a token the provider signed (an ID token or an access token), as written.
/// Their checks are ``ClaimCheck``'s, against the gateway's clock: jwt-kit checks the
/// signature only.
public struct ProviderClaims: JWTPayload, Sendable, Equatable {
    public let values: [String: JSONValue]

    public init(_ values: [String: JSONValue]) { self.values = values }

    public init(from decoder: any Decoder) throws {
        values = try [String: JSONValue](from: decoder)
    }

    public func encode(to encoder: any Encoder) throws { try values.encode(to: encoder) }

    /// No check here: ``ClaimCheck`` judges the claims with the gateway's clock and skew.
    public func verify(using algorithm: some JWTAlgorithm) async throws {}

    public var issuer: String? { string("iss") }
    public var subject: String? { string("sub") }
    /// `aud`, a string or an array of strings.
    public var audiences: [String] {
        switch values["aud"] {
        case .string(let one): [one]
        case .array(let many): many.compactMap { if case .string(let text) = $0 { text } else { nil } }
        default: []
        }
    }
    public var authorizedParty: String? { string("azp") }
    public var nonce: String? { string("nonce") }
    public var expiresAt: Date? { date("exp") }
    public var issuedAt: Date? { date("iat") }
    public var notBefore: Date? { date("nbf") }
    public var email: String? { string("email") }
    /// `email_verified`, a boolean (some providers send the string `"true"`).
    public var emailVerified: Bool {
        switch values["email_verified"] {
        case .bool(let flag): flag
        case .string(let text): text.lowercased() == "true"
        default: false
        }
    }
    public var name: String? { string("name") }
    public var preferredUsername: String? { string("preferred_username") }

    /// The groups in `claim`: an array of strings, or one string.
    public func groups(claim: String) -> [String] {
        switch values[claim] {
        case .string(let one): [one]
        case .array(let many): many.compactMap { if case .string(let text) = $0 { text } else { nil } }
        default: []
        }
    }

    /// Whether the token says anything about groups at all (an access token often doesn't).
    public func hasGroups(claim: String) -> Bool { values[claim] != nil }

    func string(_ key: String) -> String? {
        if case .string(let text) = values[key] { text } else { nil }
    }

    func date(_ key: String) -> Date? {
        switch values[key] {
        case .int(let seconds): Date(timeIntervalSince1970: TimeInterval(seconds))
        case .double(let seconds): Date(timeIntervalSince1970: seconds)
        default: nil
        }
    }
}

public import Foundation
import GatewayCore

/// Why a provider's token was refused after its signature checked out. The log names the case;
/// the browser learns only `token-invalid`.
public enum ClaimProblem: Error, Equatable, Sendable, CustomStringConvertible {
    case issuer, audience, authorizedParty, expired, notYetValid, issuedInTheFuture, missingClaim(String), nonce, subject
    /// A token presented as an access token that is not one: it carries a `nonce` (an ID
    /// token does), or its `typ` is not `at+jwt` while the API's audience is the client id,
    /// which every ID token issued to this client also names.
    case notAnAccessToken

    public var description: String {
        switch self {
        case .issuer: "the issuer is not the configured provider"
        case .audience: "the audience is not this gateway"
        case .authorizedParty: "azp names another client"
        case .expired: "the token has expired"
        case .notYetValid: "the token is not valid yet (nbf)"
        case .issuedInTheFuture: "the token was issued in the future (iat)"
        case .missingClaim(let name): "the token has no \(name)"
        case .nonce: "the nonce is not the one this sign-in sent"
        case .subject: "the subject is empty or longer than 255 characters"
        case .notAnAccessToken: "the token is not an access token (an ID token, or not typed at+jwt while the audience is the client id)"
        }
    }
}

/// The claim rules of OpenID Connect Core §3.1.3.7 (ID tokens) and of RFC 9068 §4 (access
/// tokens used as bearer tokens), with `skew` of leeway on the times. Pure: the clock comes in.
public enum ClaimCheck {
    /// An ID token from the code exchange: the issuer, this client among the audiences (and
    /// `azp` when there are several, or when present), `exp`, `iat`, `nbf`, and the nonce.
    public static func idToken(
        _ claims: ProviderClaims, issuers: [String], clientID: String, nonce: String, now: Date, skew: TimeInterval
    ) throws(ClaimProblem) {
        try common(claims, issuers: issuers, audience: clientID, now: now, skew: skew)
        let audiences = claims.audiences
        if let azp = claims.authorizedParty {
            guard azp == clientID else { throw .authorizedParty }
        } else if audiences.count > 1 {
            throw .authorizedParty
        }
        guard let issuedAt = claims.issuedAt else { throw .missingClaim("iat") }
        guard issuedAt <= now.addingTimeInterval(skew) else { throw .issuedInTheFuture }
        guard let sent = claims.nonce else { throw .missingClaim("nonce") }
        guard constantTimeEquals(Array(sent.utf8), Array(nonce.utf8)) else { throw .nonce }
    }

    /// An access token presented as `Authorization: Bearer`: the issuer, the API's audience,
    /// `exp` and `nbf`; and that it is an access token (RFC 9068 §2.1, §4): no `nonce`, and a
    /// header `typ` of `at+jwt` (or `application/at+jwt`). A token without that `typ` passes
    /// only when the API's audience is not the client id, so no ID token names it.
    public static func accessToken(
        _ claims: ProviderClaims, type: String?, issuers: [String], audience: String, clientID: String, now: Date, skew: TimeInterval
    ) throws(ClaimProblem) {
        guard claims.values["nonce"] == nil else { throw .notAnAccessToken }
        if !isAccessTokenType(type), audience == clientID { throw .notAnAccessToken }
        try common(claims, issuers: issuers, audience: audience, now: now, skew: skew)
    }

    /// Whether a JOSE header's `typ` says "JWT access token" (media types are case-insensitive,
    /// and the `application/` prefix may be left out: RFC 7515 §4.1.9).
    public static func isAccessTokenType(_ type: String?) -> Bool {
        guard let type = type?.lowercased() else { return false }
        return type == "at+jwt" || type == "application/at+jwt"
    }

    static func common(_ claims: ProviderClaims, issuers: [String], audience: String, now: Date, skew: TimeInterval) throws(ClaimProblem) {
        guard let issuer = claims.issuer, issuers.contains(issuer) else { throw .issuer }
        guard let subject = claims.subject, !subject.isEmpty, subject.count <= 255 else { throw .subject }
        guard claims.audiences.contains(audience) else { throw .audience }
        guard let expiresAt = claims.expiresAt else { throw .missingClaim("exp") }
        guard now < expiresAt.addingTimeInterval(skew) else { throw .expired }
        if let notBefore = claims.notBefore, now.addingTimeInterval(skew) < notBefore { throw .notYetValid }
    }
}

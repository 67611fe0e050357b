public import Foundation
import GatewayCore

/// Why a provider's token was refused after its signature checked out. The log names the case;
/// the browser learns only `token-invalid`.
public enum ClaimProblem: Error, Equatable, Sendable, CustomStringConvertible {
    case issuer, audience, authorizedParty, expired, notYetValid, issuedInTheFuture, missingClaim(String), nonce, subject

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
    /// `exp` and `nbf`.
    public static func accessToken(
        _ claims: ProviderClaims, issuers: [String], audience: String, now: Date, skew: TimeInterval
    ) throws(ClaimProblem) {
        try common(claims, issuers: issuers, audience: audience, now: now, skew: skew)
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

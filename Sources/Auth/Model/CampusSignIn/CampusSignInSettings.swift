public import Foundation

/// How a deployment signs students in with the university's OpenID Connect provider
/// (docs/operations.md, "Campus sign-in"). Everything about the provider but these settings is
/// read from `{issuer}/.well-known/openid-configuration`.
public struct CampusSignInSettings: Sendable {
    /// The provider's issuer: `https`, or `http` on a loopback host for development and tests.
    public var issuer: URL
    public var clientID: String
    /// Read from a file by the CLI; never logged (its description is redacted).
    public var clientSecret: ClientSecret
    /// The `aud` the provider's access tokens carry for this API (default: the client id).
    public var audience: String
    /// Members of this group are admins; nil makes nobody an admin through the provider.
    public var adminGroup: String?
    /// The claim that lists the groups.
    public var groupsClaim: String
    /// What the sign-in button says.
    public var displayName: String
    /// The gateway's own public URL; the redirect URI is `{publicURL}/v1/auth/oidc/callback`.
    public var publicURL: URL
    /// Whether students may still sign in and sign up with a password.
    public var passwordSignIn: PasswordSignIn
    /// Clock skew allowed on `exp`, `iat` and `nbf`.
    public var clockSkew: TimeInterval = 60
    /// How long a browser has between start and callback.
    public var flowLifetime: TimeInterval = 600
    /// How long a one-time sign-in code can be traded for a token.
    public var signInCodeLifetime: TimeInterval = 60
    /// The most browser flows waiting for their callbacks at once, from every network together:
    /// past it a start answers 503 until flows end (each flow is a row for `flowLifetime`).
    public var maximumLiveFlows = 10_000

    public init(
        issuer: URL, clientID: String, clientSecret: ClientSecret, audience: String? = nil, adminGroup: String? = nil,
        groupsClaim: String = "groups", displayName: String = "Sign in with Campus ID", publicURL: URL,
        passwordSignIn: PasswordSignIn = .everyone
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.audience = audience ?? clientID
        self.adminGroup = adminGroup
        self.groupsClaim = groupsClaim
        self.displayName = displayName
        self.publicURL = publicURL
        self.passwordSignIn = passwordSignIn
    }

    /// The issuer as tokens spell it: the configured URL without a trailing slash.
    public var issuerIdentifier: String {
        var text = issuer.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    /// The `iss` values tokens may carry: the issuer, and for Google also the legacy
    /// `accounts.google.com` its ID tokens may still name (Google's OpenID Connect reference).
    public var tokenIssuers: [String] {
        let issuer = issuerIdentifier
        return issuer == "https://accounts.google.com" ? [issuer, "accounts.google.com"] : [issuer]
    }

    /// Where the provider sends the browser back.
    public var redirectURI: String {
        var base = publicURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/v1/auth/oidc/callback"
    }

    /// Whether the sign-in cookie must be `Secure` (the gateway is reached over https).
    public var secureCookies: Bool { publicURL.scheme?.lowercased() == "https" }

    /// Why `issuer` can't be a provider's issuer, or nil: it must be `https`, except on a
    /// loopback host, and carry no query or fragment.
    public static func issuerProblem(_ issuer: URL) -> String? {
        guard let scheme = issuer.scheme?.lowercased(), let host = issuer.host, !host.isEmpty else {
            return "GATEWAY_OIDC_ISSUER must be an absolute URL"
        }
        guard issuer.query == nil, issuer.fragment == nil else { return "GATEWAY_OIDC_ISSUER must have no query or fragment" }
        switch scheme {
        case "https": return nil
        case "http": return isLoopback(host) ? nil : "GATEWAY_OIDC_ISSUER must be https (http only on a loopback host)"
        default: return "GATEWAY_OIDC_ISSUER must be https"
        }
    }

    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "localhost" || bare == "::1" { return true }
        let parts = bare.split(separator: ".")
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }
}

/// Whether password sign-in stays open to everyone once a provider is configured.
public enum PasswordSignIn: String, Sendable, CaseIterable {
    /// Passwords work for everyone (the default).
    case everyone
    /// Only admins sign in with a password; students use the provider, and self-service sign-up
    /// is off. The SDSU and QuickHAC protocols keep their own credentials.
    case adminsOnly = "admins-only"
}

/// The OAuth client secret: kept out of every description, so it can't reach a log by accident.
public struct ClientSecret: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public let value: String

    public init(_ value: String) { self.value = value }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
}

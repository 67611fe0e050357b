import ArgumentParser
import Auth
import Foundation
import GatewayApp

/// The campus sign-in flags of `gateway serve` (docs/operations.md, "Campus sign-in"); each has
/// a `GATEWAY_OIDC_*` variable. The client secret is read from a file, never from a flag (a
/// flag would show in `ps`). A wrong setting stops the start with a message that names it.
struct CampusSignInOptions: ParsableArguments {
    @Option(name: .customLong("oidc-issuer"), help: "The OpenID provider's issuer URL (GATEWAY_OIDC_ISSUER); turns campus sign-in on.")
    var issuer: String?
    @Option(name: .customLong("oidc-client-id"), help: "The gateway's client id at the provider (GATEWAY_OIDC_CLIENT_ID).")
    var clientID: String?
    @Option(name: .customLong("oidc-client-secret-file"), help: "A file holding the client secret (GATEWAY_OIDC_CLIENT_SECRET_FILE).")
    var clientSecretFile: String?
    @Option(name: .customLong("oidc-access-token-audience"), help: "The aud of the provider's access tokens for this API (GATEWAY_OIDC_ACCESS_TOKEN_AUDIENCE). Default: the client id, and then only tokens typed at+jwt are accepted")
    var accessTokenAudience: String?
    @Option(name: .customLong("oidc-audience"), help: "The former name of --oidc-access-token-audience (GATEWAY_OIDC_AUDIENCE)")
    var audience: String?
    @Option(name: .customLong("oidc-admin-group"), help: "Members of this group are admins (GATEWAY_OIDC_ADMIN_GROUP).")
    var adminGroup: String?
    @Option(name: .customLong("oidc-groups-claim"), help: "The claim listing the groups (GATEWAY_OIDC_GROUPS_CLAIM). Default: groups")
    var groupsClaim: String?
    @Option(name: .customLong("oidc-display-name"), help: "What the sign-in button says (GATEWAY_OIDC_DISPLAY_NAME). Default: Sign in with Campus ID")
    var displayName: String?
    @Option(name: .customLong("password-signin"), help: "everyone or admins-only: who may sign in with a password when a provider is configured (GATEWAY_PASSWORD_SIGNIN). Default: everyone")
    var passwordSignIn: String?

    func apply(to config: inout GatewayConfiguration) throws {
        let mode = passwordSignIn ?? Env.string("password-signin")
        guard let rawIssuer = issuer ?? Env.string("oidc-issuer") else {
            let others = [clientID, clientSecretFile, accessTokenAudience, audience, adminGroup, groupsClaim, displayName].contains { $0 != nil }
                || ["oidc-client-id", "oidc-client-secret-file", "oidc-access-token-audience", "oidc-audience", "oidc-admin-group"]
                    .contains { Env.string($0) != nil }
            if others { throw GatewayCLIError("the GATEWAY_OIDC_* settings need GATEWAY_OIDC_ISSUER") }
            if let mode, mode != PasswordSignIn.everyone.rawValue {
                throw GatewayCLIError("GATEWAY_PASSWORD_SIGNIN=\(mode) needs a campus provider (GATEWAY_OIDC_ISSUER)")
            }
            return
        }
        guard let issuerURL = URL(string: rawIssuer) else { throw GatewayCLIError("GATEWAY_OIDC_ISSUER is not a URL") }
        if let problem = CampusSignInSettings.issuerProblem(issuerURL) { throw GatewayCLIError(problem) }
        guard let id = clientID ?? Env.string("oidc-client-id"), !id.isEmpty else {
            throw GatewayCLIError("GATEWAY_OIDC_ISSUER needs GATEWAY_OIDC_CLIENT_ID")
        }
        guard let file = clientSecretFile ?? Env.string("oidc-client-secret-file") else {
            throw GatewayCLIError("GATEWAY_OIDC_ISSUER needs GATEWAY_OIDC_CLIENT_SECRET_FILE")
        }
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw GatewayCLIError("GATEWAY_OIDC_CLIENT_SECRET_FILE: cannot read \(file)")
        }
        let secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !secret.isEmpty else { throw GatewayCLIError("GATEWAY_OIDC_CLIENT_SECRET_FILE: \(file) is empty") }
        guard let publicURL = config.publicURL else {
            throw GatewayCLIError("GATEWAY_OIDC_ISSUER needs GATEWAY_PUBLIC_URL (the redirect URI is {public URL}/v1/auth/oidc/callback)")
        }
        let signIn = try mode.map { raw in
            guard let value = PasswordSignIn(rawValue: raw) else {
                throw GatewayCLIError("GATEWAY_PASSWORD_SIGNIN must be everyone or admins-only, not '\(raw)'")
            }
            return value
        } ?? .everyone
        var settings = CampusSignInSettings(
            issuer: issuerURL, clientID: id, clientSecret: ClientSecret(secret), audience: accessTokenAudience ?? Env.string("oidc-access-token-audience") ?? audience ?? Env.string("oidc-audience"),
            adminGroup: adminGroup ?? Env.string("oidc-admin-group"), publicURL: publicURL, passwordSignIn: signIn
        )
        if let claim = groupsClaim ?? Env.string("oidc-groups-claim") { settings.groupsClaim = claim }
        if let name = displayName ?? Env.string("oidc-display-name") { settings.displayName = String(name.prefix(80)) }
        config.campusSignIn = settings
        config.auth.passwordSignIn = signIn
    }
}

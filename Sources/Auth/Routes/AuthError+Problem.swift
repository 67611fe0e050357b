public import GatewayHTTP

extension AuthError: ProblemConvertible {
    public var problem: Problem {
        switch self {
        case .invalidField(let field, let message):
            .validation(message, field: field)
        case .accountExists(let field):
            .conflict("account-exists", title: "Account already exists", detail: "An account with this \(field) already exists.")
        case .invalidCredentials:
            .invalidCredentials()
        case .throttled(let seconds):
            .tooManyRequests(retryAfterSeconds: seconds, detail: "Too many failed sign-ins. Try again later.")
        case .signUpThrottled(let seconds):
            .tooManyRequests(retryAfterSeconds: seconds, detail: "Too many sign-ups from this address. Try again later.")
        case .busy(let seconds):
            .unavailable(retryAfterSeconds: seconds, detail: "Too many sign-ins are being processed; try again shortly.")
        case .accountNotFound(let id):
            .notFound(id.map { "No account \($0)." } ?? "No resource lives at this address.")
        case .ownAccount:
            .conflict("own-account", title: "Can't change your own account", detail: "Ask another admin to disable your account or change its role.")
        case .notAnAdmin:
            .forbidden()
        case .missingServerKey:
            .internalError()
        case .identityLinked:
            .conflict("identity-linked", title: "Campus identity already linked", detail: "The campus identity or the account is already linked to another.")
        case .noPassword:
            .conflict("no-password", title: "No password", detail: "This account signs in with the campus provider; it has no password.")
        case .passwordSignInOff:
            .forbidden("Password sign-in and sign-up are for admins here; sign in with the campus provider.")
        case .campusSignInOff:
            .notFound("Campus sign-in is not configured.")
        case .invalidSignInCode:
            .unauthenticated("The sign-in code is unknown, used or expired: sign in again.")
        case .signInNotYours:
            Problem(
                type: "signin-not-yours", title: "Sign-in started elsewhere", status: .badRequest,
                detail: "This sign-in was not started in this browser, so it was refused and nothing changed. If you meant to sign in, start again here."
            )
        }
    }
}

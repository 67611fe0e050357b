/// Why an Auth use case did not happen. `Routes/AuthError+Problem.swift` turns each case into
/// its problem document, in one place.
public enum AuthError: Error, Sendable, Equatable {
    /// A field breaks a rule (username shape, email, password policy, token lifetime).
    case invalidField(String, message: String)
    /// The username or email is taken; `field` says which.
    case accountExists(field: String)
    /// The username or password is wrong, or the account is disabled (deliberately not saying which).
    case invalidCredentials
    /// Too many failed sign-ins for this username or address.
    case throttled(retryAfterSeconds: Int)
    /// Too many sign-ups from this address.
    case signUpThrottled(retryAfterSeconds: Int)
    /// Password hashing is saturated.
    case busy(retryAfterSeconds: Int)
    /// No such account.
    case accountNotFound(Int64?)
    /// Admins can't disable or demote themselves.
    case ownAccount
    /// The caller is no longer an enabled admin.
    case notAnAdmin
    /// The database has no server key (its `auth.002` migration did not run).
    case missingServerKey
    /// The campus identity is linked to another account, or the account to another identity.
    case identityLinked
    /// The account signs in with the campus provider only: it has no password.
    case noPassword
    /// Password sign-in or sign-up is turned off for students (`GATEWAY_PASSWORD_SIGNIN=admins-only`).
    case passwordSignInOff
    /// No campus provider is configured.
    case campusSignInOff
    /// The sign-in code is unknown, used or expired.
    case invalidSignInCode
    /// The sign-in code was handed to another browser (its code cookie is missing or another):
    /// someone may be trying to sign this browser in as them.
    case signInNotYours
}

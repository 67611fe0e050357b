import Catalog
public import Foundation
import Contracts

/// Why a registration use case did not happen. Routes turn each case into the SDSU
/// protocol's `{"error": ...}` string or a v1 problem type.
public enum RegistrationError: Error, Sendable, Equatable {
    /// An enrollment rule would be broken.
    case violation(EnrollmentViolation)
    /// The eligibility rules refuse, for every reason given (dates told in `timeZone`, the
    /// term's).
    case ineligible([IneligibleReason], timeZone: TimeZone)
    /// No class has this id.
    case unknownClass(Int64)
    /// The account has no student profile (red id, names, email) yet.
    case profileRequired
    /// The red id or the password is wrong (deliberately not saying which).
    case invalidCredentials
    /// Too many failed sign-ins for this red id or address.
    case throttled(retryAfterSeconds: Int)
    /// Password hashing is saturated; try again shortly.
    case busy(retryAfterSeconds: Int)
    /// Sign-up: too many sign-ups from this address.
    case signUpThrottled(retryAfterSeconds: Int)
    /// Sign-up: the red id is not nine digits or is not accepted by the red id policy.
    case invalidRedID
    /// Sign-up: the red id belongs to another student.
    case redIDInUse
    /// Under the `roster` policy a student can't bind a red id to their account themselves.
    case redIDBindingNeedsProof
    /// Admin: no account has this id.
    case unknownAccount(Int64)
    /// Sign-up: seed 000's password rule.
    case passwordTooShort
    case passwordTooFewDistinct
    case passwordTooLong
    /// Sign-up: the address has no `@`.
    case invalidEmail
    /// Sign-up: a name is empty or too long.
    case invalidName(field: String)
    /// Admin: a class cannot have fewer seats than students enrolled or holding offers.
    case seatsBelowEnrollment(Int)
    /// Admin: a class definition was refused, with the reason.
    case invalidClass(String)
    /// Admin: deleting a class that has students needs `dropStudents`; this many are in it.
    case classHasStudents(Int)
    /// Registrar feed: the delivery is unsigned, wrongly signed or too old (why).
    case registrarSignature(String)
    /// Registrar feed: the body is refused (the JSON pointer of the field and why).
    case invalidRegistrarFeed(pointer: String, reason: String)
    /// Registrar feed: no term has this id.
    case termNotFound(String)
    /// Registrar feed: the term's seats come from the gateway, not the registrar.
    case termNotAtRegistrar(String)
    /// Admin: an eligibility value past its bounds or inconsistent (why).
    case eligibilityLimit(String)
}

extension RegistrationError {
    /// What the account directory's refusal means to a registration use case.
    init(_ error: AccountDirectoryError) {
        switch error {
        case .usernameTaken: self = .redIDInUse
        case .invalidCredentials: self = .invalidCredentials
        case .throttled(let seconds): self = .throttled(retryAfterSeconds: seconds)
        case .busy(let seconds): self = .busy(retryAfterSeconds: seconds)
        case .signUpThrottled(let seconds): self = .signUpThrottled(retryAfterSeconds: seconds)
        }
    }
}

extension RegistrationError {
    /// When to try again, for the refusals that pass with time (busy, throttled).
    public var retryAfterSeconds: Int? {
        switch self {
        case .busy(let seconds), .throttled(let seconds), .signUpThrottled(let seconds): seconds
        default: nil
        }
    }
}

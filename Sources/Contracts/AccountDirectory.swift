public import Foundation

/// The accounts that feature modules may know about, answered by the Auth module. A feature
/// module never reads Auth's tables: it asks the directory, inside its own transaction when
/// the change must be atomic with its own rows.
public protocol AccountDirectory: Sendable {
    /// Counts a self-service sign-up attempt from `clientAddress`, before anything else is
    /// checked (so probing which names are taken is limited too). Throws
    /// ``AccountDirectoryError/signUpThrottled(retryAfterSeconds:)`` when that address signed up
    /// too often (counted across every instance on the database). Nil (an operator's action)
    /// is not counted.
    func admitSignUp(from clientAddress: String?) async throws

    /// Hashes a password for an account about to be created (argon2id, off the caller's
    /// thread, within the client's share of the hasher). Throws
    /// ``AccountDirectoryError/busy(retryAfterSeconds:)`` when hashing is saturated.
    func sealPassword(_ password: String, clientAddress: String?) async throws -> SealedPassword

    /// Creates a student account in the caller's transaction and returns its id. Throws
    /// ``AccountDirectoryError/usernameTaken`` when the username is in use.
    func createStudentAccount(username: String, password: SealedPassword, at now: Date, in transaction: any StoreTransaction) throws -> Int64

    func account(id: Int64, in transaction: any StoreTransaction) throws -> DirectoryAccount?
    func account(username: String, in transaction: any StoreTransaction) throws -> DirectoryAccount?

    /// Changes an account's sign-in name. Throws ``AccountDirectoryError/usernameTaken``.
    func rename(accountID: Int64, to username: String, in transaction: any StoreTransaction) throws

    /// The names other students see these accounts by: the one each student chose, else the
    /// one their registration profile suggests. Accounts with neither are absent (a caller
    /// shows no name, never the username, to anyone who is not a friend).
    func displayNames(of ids: [Int64], in transaction: any StoreTransaction) throws -> [Int64: String]

    /// Sets the name the account's registration profile suggests (its first name), shown
    /// while the student has chosen none.
    func suggestDisplayName(fromProfile firstName: String, accountID: Int64, in transaction: any StoreTransaction) throws

    /// Those of `ids` whose accounts are disabled (or gone).
    func inactiveAccounts(among ids: [Int64], in transaction: any StoreTransaction) throws -> Set<Int64>

    /// Checks a password for the account `accountID` (nil: the caller knows no account for
    /// `signInName`), with the sign-in throttle keyed by `signInName` and the client address,
    /// and the same work whether or not the account exists. The caller maps its own sign-in
    /// name to an account first (Registration: a red id to its student's account, from its own
    /// table); the directory then reads only its own. Returns the account id, or throws
    /// ``AccountDirectoryError``.
    func verifyPassword(_ password: String, accountID: Int64?, signInName: String, clientAddress: String?) async throws -> Int64

    /// Remembers that `password` is the password just sealed as `sealed` for the new account
    /// `accountID`, signed in to as `signInName`, so the account's first sign-ins (an SDSU
    /// client sends the password with every request) need no second hash: a credential the
    /// gateway has verified serves every route at once, even while the hasher is busy. The
    /// credential is remembered for the client network it came from (`clientAddress`).
    func rememberVerified(_ password: String, sealed: SealedPassword, signInName: String, accountID: Int64, clientAddress: String?)
}

/// What the directory tells about an account.
public struct DirectoryAccount: Sendable, Equatable {
    public var id: Int64
    public var username: String
    public var disabled: Bool

    public init(id: Int64, username: String, disabled: Bool) {
        self.id = id
        self.username = username
        self.disabled = disabled
    }
}

/// A password hashed by the directory, ready to store. Opaque to everyone else.
public struct SealedPassword: Sendable, Equatable {
    public let encoded: String

    public init(encoded: String) { self.encoded = encoded }
}

/// Why the directory refused.
public enum AccountDirectoryError: Error, Sendable, Equatable {
    case usernameTaken
    /// The account is unknown, disabled, or the password is wrong (deliberately not saying which).
    case invalidCredentials
    /// Too many failed sign-ins for this name or address.
    case throttled(retryAfterSeconds: Int)
    /// Password hashing is saturated; try again shortly.
    case busy(retryAfterSeconds: Int)
    /// Too many sign-ups from this address.
    case signUpThrottled(retryAfterSeconds: Int)
}

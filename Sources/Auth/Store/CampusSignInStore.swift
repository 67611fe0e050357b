public import Contracts
public import Foundation

/// One browser sign-in between `start` and `callback`: what the callback needs to check and
/// finish it. Stored in the database (the callback may reach another instance), with the state
/// and the browser binding as SHA-256 hashes only.
public struct CampusSignInFlow: Sendable, Equatable {
    public var stateHash: Data
    public var browserHash: Data
    public var nonce: String
    public var codeVerifier: String
    public var returnTo: String
    public var expiresAt: Date

    public init(stateHash: Data, browserHash: Data, nonce: String, codeVerifier: String, returnTo: String, expiresAt: Date) {
        self.stateHash = stateHash
        self.browserHash = browserHash
        self.nonce = nonce
        self.codeVerifier = codeVerifier
        self.returnTo = returnTo
        self.expiresAt = expiresAt
    }
}

/// A campus identity `(issuer, subject)` and the account it signs in to, with what the provider
/// last said of the person.
public struct CampusIdentity: Sendable, Equatable {
    public var issuer: String
    public var subject: String
    public var accountID: Int64
    public var email: String?
    public var emailVerified: Bool
    public var name: String?

    public init(issuer: String, subject: String, accountID: Int64, email: String?, emailVerified: Bool, name: String?) {
        self.issuer = issuer
        self.subject = subject
        self.accountID = accountID
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
    }
}

/// A one-time sign-in code as kept: its account, and the hash of the cookie of the browser it
/// was handed to (nil for a code kept before codes were bound to a browser: never redeemable).
public struct CampusSignInCode: Sendable, Equatable {
    public let accountID: Int64
    public let browserHash: Data?

    public init(accountID: Int64, browserHash: Data?) {
        self.accountID = accountID
        self.browserHash = browserHash
    }
}

/// Campus sign-in's rows, each method inside the caller's transaction.
public protocol CampusSignInStoring: Sendable {
    func insertFlow(_ flow: CampusSignInFlow, in transaction: any StoreTransaction) throws
    /// How many flows have not expired at `now`, counting at most `limit` (the bound on live
    /// flows is checked before each start).
    func liveFlows(now: Date, limit: Int, in transaction: any StoreTransaction) throws -> Int
    /// Deletes and returns the flow with this state hash: a state works once. Nil when unknown.
    func takeFlow(stateHash: Data, in transaction: any StoreTransaction) throws -> CampusSignInFlow?
    /// The identity `(issuer, subject)`, never matched by anything else (not by email).
    func identity(issuer: String, subject: String, in transaction: any StoreTransaction) throws -> CampusIdentity?
    /// The identity linked to an account, if any.
    func identity(accountID: Int64, in transaction: any StoreTransaction) throws -> CampusIdentity?
    /// Links an identity to an account, or updates what the provider said of it; an identity
    /// linked to another account, or an account linked to another identity, is
    /// ``AuthError/identityLinked``.
    func save(_ identity: CampusIdentity, at: Date, in transaction: any StoreTransaction) throws
    /// Keeps a one-time sign-in code, bound to the browser that finished the flow by the hash
    /// of its code cookie.
    func insertCode(hash: Data, browserHash: Data, accountID: Int64, expiresAt: Date, in transaction: any StoreTransaction) throws
    /// Deletes the code and returns it when it has not expired; nil otherwise. A code works
    /// once, whoever presents it.
    func takeCode(hash: Data, now: Date, in transaction: any StoreTransaction) throws -> CampusSignInCode?
    /// Deletes flows and codes that expired before `cutoff`; returns how many.
    @discardableResult
    func prune(before cutoff: Date, in transaction: any StoreTransaction) throws -> Int
}

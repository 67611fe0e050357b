import Catalog
import Storage
import Logging
import Contracts
import Foundation
import GatewayCore

/// What a student gives to sign up through the SDSU protocol.
public struct NewStudent: Sendable, Equatable {
    public var firstName: String
    public var lastName: String
    public var redID: String
    public var password: String
    public var email: String

    public init(firstName: String, lastName: String, redID: String, password: String, email: String) {
        self.firstName = firstName
        self.lastName = lastName
        self.redID = redID
        self.password = password
        self.email = email
    }
}

/// Students: sign-up through the SDSU protocol, profiles (red id, names, email), and red id
/// credential checks, answered by the account directory.
public struct StudentService: RegistrationUseCase {
    let environment: RegistrationEnvironment

    /// Signs a student up: a student account whose username is the red id (so the red id and
    /// password also sign in to v1) and its profile, created atomically. Checks, in order: the
    /// red id policy, seed 000's password rule, the email, the names, and that the red id is
    /// free. Every attempt counts against the client address's sign-up limit first, so nobody
    /// can probe red ids (taken? on the roster?) without limit.
    public func addStudent(_ student: NewStudent, clientAddress: String? = nil) async throws -> StudentProfile {
        let first = student.firstName.trimmingCharacters(in: .whitespacesAndNewlines)
        let last = student.lastName.trimmingCharacters(in: .whitespacesAndNewlines)
        let email = student.email.trimmingCharacters(in: .whitespacesAndNewlines)
        let redID = student.redID.trimmingCharacters(in: .whitespaces)
        do {
            try await accounts.admitSignUp(from: clientAddress)
        } catch let error as AccountDirectoryError {
            throw RegistrationError(error)
        }
        try await validateRedID(redID)
        switch SDSUPasswordRule.violation(student.password) {
        case .tooShort: throw RegistrationError.passwordTooShort
        case .tooFewDistinct: throw RegistrationError.passwordTooFewDistinct
        case .tooLong: throw RegistrationError.passwordTooLong
        case nil: break
        }
        try validateProfile(firstName: first, lastName: last, email: email)
        let accounts = self.accounts
        if try await transactions.read({ db in try self.isRedIDTaken(redID, in: db) }) {
            throw RegistrationError.redIDInUse
        }
        let password = try await sealed(student.password, clientAddress: clientAddress)
        let now = clock.now()
        do {
            let profile = try await transactions.write { db in
                let accountID = try accounts.createStudentAccount(username: redID, password: password, at: now, in: db)
                let profile = StudentProfile(
                    accountID: accountID, redID: redID, firstName: first, lastName: last, email: email, createdAt: now
                )
                try stores.students.insert(profile, in: db)
                try accounts.suggestDisplayName(fromProfile: first, accountID: accountID, in: db)
                return profile
            }
            accounts.rememberVerified(student.password, sealed: password, signInName: redID, accountID: profile.accountID, clientAddress: clientAddress)
            logger.info("student added", metadata: ["account": "\(profile.accountID)"])
            return profile
        } catch AccountDirectoryError.usernameTaken {
            throw RegistrationError.redIDInUse
        }
    }

    /// Creates or updates the student profile of an existing account (v1 users who signed up
    /// with a username and want to register for classes). A student created through
    /// `addstudent` signs in with the red id as username; changing the red id renames the
    /// account too, so both protocols keep working with the new red id.
    ///
    /// Under the `roster` red id policy a student can't bind a red id to themselves here (any
    /// account could otherwise claim a classmate's): it is bound by proof (`addstudent` with
    /// that roster entry) or by an admin (`byAdmin`). Names and email can still be changed.
    public func saveProfile(
        accountID: Int64, redID rawRedID: String, firstName: String, lastName: String, email: String, shareEnrollments: Bool? = nil,
        byAdmin: Bool = false
    ) async throws -> StudentProfile {
        let first = firstName.trimmingCharacters(in: .whitespacesAndNewlines)
        let last = lastName.trimmingCharacters(in: .whitespacesAndNewlines)
        let mail = email.trimmingCharacters(in: .whitespacesAndNewlines)
        let redID = rawRedID.trimmingCharacters(in: .whitespaces)
        try validateProfile(firstName: first, lastName: last, email: mail)
        try await validateRedID(redID)
        if settings.redIDPolicy == .roster, !byAdmin {
            let current = try await transactions.read { db in try stores.students.profile(accountID: accountID, in: db)?.redID }
            guard current == redID else { throw RegistrationError.redIDBindingNeedsProof }
        }
        let now = clock.now()
        let accounts = self.accounts
        do {
            return try await transactions.write { db in
                if let owner = try stores.students.profile(redID: redID, in: db), owner.accountID != accountID {
                    throw RegistrationError.redIDInUse
                }
                if let taken = try accounts.account(username: redID, in: db), taken.id != accountID {
                    throw RegistrationError.redIDInUse
                }
                if var existing = try stores.students.profile(accountID: accountID, in: db) {
                    if existing.redID != redID, try accounts.account(id: accountID, in: db)?.username == existing.redID {
                        try accounts.rename(accountID: accountID, to: redID, in: db)
                    }
                    existing.redID = redID
                    existing.firstName = first
                    existing.lastName = last
                    existing.email = mail
                    try stores.students.update(existing, in: db)
                    try accounts.suggestDisplayName(fromProfile: first, accountID: accountID, in: db)
                    if let shareEnrollments { try stores.students.setSharesEnrollments(shareEnrollments, accountID: accountID, at: now, in: db) }
                    return existing
                }
                let profile = StudentProfile(accountID: accountID, redID: redID, firstName: first, lastName: last, email: mail, createdAt: now)
                try stores.students.insert(profile, in: db)
                try accounts.suggestDisplayName(fromProfile: first, accountID: accountID, in: db)
                if let shareEnrollments { try stores.students.setSharesEnrollments(shareEnrollments, accountID: accountID, at: now, in: db) }
                return profile
            }
        } catch AccountDirectoryError.usernameTaken {
            throw RegistrationError.redIDInUse
        }
    }

    /// An admin creates or changes an account's student profile, red id included (whatever
    /// the red id policy says about self-service binding). Unknown accounts are
    /// ``RegistrationError/unknownAccount``.
    public func saveProfileAsAdmin(
        accountID: Int64, redID: String, firstName: String, lastName: String, email: String
    ) async throws -> StudentProfile {
        let accounts = self.accounts
        guard try await transactions.read({ db in try accounts.account(id: accountID, in: db) }) != nil else {
            throw RegistrationError.unknownAccount(accountID)
        }
        return try await saveProfile(accountID: accountID, redID: redID, firstName: firstName, lastName: lastName, email: email, byAdmin: true)
    }

    /// The student profile of an account, if it has one.
    public func profile(accountID: Int64) async throws -> StudentProfile? {
        try await transactions.read { db in try stores.students.profile(accountID: accountID, in: db) }
    }

    /// Checks a red id and password the way the SDSU protocol sends them. The red id's student
    /// is read here, from Registration's own table; the account directory (Auth) then does the
    /// check: the sign-in throttle keyed by the red id, a decoy
    /// verification for unknown red ids, and its credential cache. Returns the student's
    /// account id.
    public func authenticate(redID rawRedID: String, password: String, clientAddress: String?) async throws -> Int64 {
        let redID = rawRedID.trimmingCharacters(in: .whitespaces)
        // Only nine digits can be a red id: anything else is refused before the throttle or the
        // hasher see it (so a huge "red id" costs nothing and is kept nowhere).
        guard RedID.isWellFormed(redID) else { throw RegistrationError.invalidCredentials }
        let students = stores.students
        do {
            // Registration's own table says whose red id it is; Auth then checks that account's
            // password in its own. No module reads inside another's transaction.
            let accountID: Int64?
            if let requestPath = stores.oneTrip {
                accountID = try await transactions.inTask { db in try await requestPath.accountID(redID: redID, in: db) }
            } else {
                accountID = try await transactions.readPreferringInline { db in try students.profile(redID: redID, in: db)?.accountID }
            }
            return try await accounts.verifyPassword(password, accountID: accountID, signInName: redID, clientAddress: clientAddress)
        } catch let error as AccountDirectoryError {
            throw RegistrationError(error)
        }
    }

    /// Whether the red id belongs to a student, or is the username of any account (an
    /// SDSU-created student's username is their red id).
    func isRedIDTaken(_ redID: String, in db: any StoreTransaction) throws -> Bool {
        try stores.students.profile(redID: redID, in: db) != nil || accounts.account(username: redID, in: db) != nil
    }

    /// The password sealed by the account directory.
    func sealed(_ password: String, clientAddress: String?) async throws -> SealedPassword {
        do {
            return try await accounts.sealPassword(password, clientAddress: clientAddress)
        } catch let error as AccountDirectoryError {
            throw RegistrationError(error)
        }
    }

    func validateProfile(firstName: String, lastName: String, email: String) throws {
        if !SDSUEmailRule.isAcceptable(email) { throw RegistrationError.invalidEmail }
        if !Self.isAcceptableName(firstName) { throw RegistrationError.invalidName(field: "firstname") }
        if !Self.isAcceptableName(lastName) { throw RegistrationError.invalidName(field: "lastname") }
    }

    /// A name is 1 to 100 characters with no control characters (NUL, escapes, line breaks):
    /// it shows on rosters and in mail, and a NUL is something PostgreSQL will not store.
    static func isAcceptableName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 100 && !name.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    func validateRedID(_ redID: String) async throws {
        guard settings.redIDPolicy.admitsFormat(redID) else { throw RegistrationError.invalidRedID }
        if settings.redIDPolicy == .roster {
            let listed = try await transactions.read { db in try stores.students.isOnRoster(redID, in: db) }
            if !listed { throw RegistrationError.invalidRedID }
        }
    }
}

import Storage
import GatewayCore
public import Contracts
public import Foundation

/// Auth's answer to ``AccountDirectory``, on whichever backend ``AuthService``'s stores use:
/// what feature modules may know and do about accounts, inside their own transactions,
/// without reading Auth's tables.
///
/// Password checks go through the same throttle as v1 sign-ins (keyed by the sign-in name the
/// protocol uses, a red id for SDSU), verify a decoy hash when the account is unknown, and
/// remember verified pairs for `credentialCacheSeconds` (see ``CredentialCache``) because
/// protocol clients send the password with every request.
public struct AuthAccountDirectory: AccountDirectory {
    let service: AuthService
    let cache: CredentialCache

    public init(service: AuthService, credentialCacheSeconds: TimeInterval) {
        self.service = service
        self.cache = CredentialCache(lifetime: credentialCacheSeconds)
    }

    public func admitSignUp(from clientAddress: String?) async throws {
        do {
            try await service.checkSignUpAllowed(from: clientAddress)
        } catch AuthError.signUpThrottled(let seconds) {
            throw AccountDirectoryError.signUpThrottled(retryAfterSeconds: seconds)
        }
    }

    public func sealPassword(_ password: String, clientAddress: String?) async throws -> SealedPassword {
        do {
            return SealedPassword(encoded: try await service.hasher.hash(password, client: clientAddress.map(LoginThrottle.network)))
        } catch AuthError.busy(let seconds) {
            throw AccountDirectoryError.busy(retryAfterSeconds: seconds)
        }
    }

    public func createStudentAccount(username: String, password: SealedPassword, at now: Date, in db: any StoreTransaction) throws -> Int64 {
        do {
            let account = try service.store.insert(
                Account(username: username, email: nil, passwordHash: password.encoded, role: .student, createdAt: now), in: db
            )
            return account.id ?? 0
        } catch AuthError.accountExists {
            throw AccountDirectoryError.usernameTaken
        }
    }

    public func account(id: Int64, in db: any StoreTransaction) throws -> DirectoryAccount? {
        try service.store.find(id: id, in: db).map(Self.entry)
    }

    public func account(username: String, in db: any StoreTransaction) throws -> DirectoryAccount? {
        try service.store.find(username: username, in: db).map(Self.entry)
    }

    public func rename(accountID: Int64, to username: String, in db: any StoreTransaction) throws {
        do {
            try service.store.rename(accountID: accountID, to: username, in: db)
        } catch AuthError.accountExists {
            throw AccountDirectoryError.usernameTaken
        }
    }

    public func displayNames(of ids: [Int64], in db: any StoreTransaction) throws -> [Int64: String] {
        try service.store.displayNames(of: ids, in: db).compactMapValues(\.shown)
    }

    public func suggestDisplayName(fromProfile firstName: String, accountID: Int64, in db: any StoreTransaction) throws {
        try service.store.setProfileDisplayName(DisplayNameRule.fromProfile(firstName), accountID: accountID, in: db)
    }

    public func inactiveAccounts(among ids: [Int64], in db: any StoreTransaction) throws -> Set<Int64> {
        Set(ids).subtracting(try service.store.enabledAccounts(among: ids, in: db))
    }

    public func verifyPassword(_ password: String, accountID: Int64?, signInName: String, clientAddress: String?) async throws -> Int64 {
        let store = service.store, transactions = service.transactions
        do {
            let account = try await service.checkPassword(password, signInName: signInName, clientAddress: clientAddress, cache: cache) {
                guard let accountID else { return nil }
                if store.findsInTask { return try await transactions.inTask { db in try await store.findInTask(id: accountID, in: db) } }
                return try await transactions.readPreferringInline { db in try store.find(id: accountID, in: db) }
            }
            return account.id ?? 0
        } catch AuthError.invalidCredentials {
            throw AccountDirectoryError.invalidCredentials
        } catch AuthError.throttled(let seconds) {
            throw AccountDirectoryError.throttled(retryAfterSeconds: seconds)
        } catch AuthError.busy(let seconds) {
            throw AccountDirectoryError.busy(retryAfterSeconds: seconds)
        }
    }

    public func rememberVerified(_ password: String, sealed: SealedPassword, signInName: String, accountID: Int64, clientAddress: String?) {
        cache.remember(
            redID: signInName, network: clientAddress.map(LoginThrottle.network), accountID: accountID, passwordHash: sealed.encoded,
            password: password, now: service.clock.now()
        )
    }

    static func entry(_ account: Account) -> DirectoryAccount {
        DirectoryAccount(id: account.id ?? 0, username: account.username, disabled: account.disabled)
    }
}

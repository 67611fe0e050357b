import Contracts
import Storage
import Logging
import Foundation
public import GatewayCore

extension AuthService {
    /// Changes the caller's own password after checking the current one (throttled like a
    /// sign-in). Every other token of the account is revoked, so a stolen session ends with it.
    public func changePassword(
        accountID: Int64, current: String, new: String, keepingToken tokenID: Int64?, clientAddress: String?
    ) async throws {
        guard let account = try await account(id: accountID) else { throw AuthError.accountNotFound(nil) }
        guard account.hasPassword else { throw AuthError.noPassword }
        // Counted apart from sign-ins: whoever holds a stolen token can guess here until this
        // route's own throttle answers 429, but can't lock the owner out of signing in.
        let confirmed = current.utf8.count <= PasswordPolicy.maximumBytes
            ? try await verifyCounted(
                current, encoded: account.passwordHash, signInName: Self.passwordChangeName(accountID), clientAddress: clientAddress,
                countingAddress: false
            )
            : false
        guard confirmed else { throw AuthError.invalidField("currentPassword", message: "The current password is not right.") }
        try await setPassword(accountID: accountID, to: new, username: account.username, keepingToken: tokenID)
    }

    /// The throttle's name for one account's password changes: no sign-in name can be it.
    static func passwordChangeName(_ accountID: Int64) -> String { "\u{1}password-change \(accountID)" }

    /// Sets a password without the old one (for admins and tests), after the policy check.
    /// Revokes every token of the account except `keepingToken`, and every other module's
    /// sign-in-free credential (``CredentialRevocation``: calendar feeds).
    public func setPassword(accountID: Int64, to password: String, username: String, keepingToken tokenID: Int64? = nil) async throws {
        if let reason = PasswordPolicy.violation(password, username: username) {
            throw AuthError.invalidField("newPassword", message: reason)
        }
        let hash = try await hasher.hash(password)
        let now = clock.now()
        try await transactions.write { [store] db in
            try store.updatePasswordHash(accountID: accountID, hash: hash, in: db)
            try store.revokeTokens(accountID: accountID, keeping: tokenID, now: now, in: db)
            try self.revokeCredentials(accountID: accountID, in: db)
        }
        logger.info("password changed", metadata: ["account": "\(accountID)"])
    }

    /// An admin disables or re-enables an account, or changes its role. Disabling revokes
    /// the account's tokens and other modules' credentials (``CredentialRevocation``) (a role change needs none: roles are read on every request). Admins
    /// can't change their own account this way, and the caller's standing is re-read inside the
    /// write, so an admin demoted or disabled a moment ago can't finish a change: some enabled
    /// admin (the caller) always remains.
    public func updateAccount(id: Int64, disabled: Bool?, role: Role?, by admin: Identity) async throws -> Account {
        guard id != admin.accountID else {
            throw AuthError.ownAccount
        }
        let now = clock.now()
        let updated = try await transactions.write { [store] db -> Account in
            guard let caller = try store.find(id: admin.accountID, in: db), caller.role == .admin, !caller.disabled else {
                throw AuthError.notAnAdmin
            }
            guard var account = try store.find(id: id, in: db) else { throw AuthError.accountNotFound(id) }
            account.disabled = disabled ?? account.disabled
            account.role = role ?? account.role
            try store.setStatus(accountID: id, disabled: account.disabled, role: account.role, in: db)
            if account.disabled {
                try store.revokeTokens(accountID: id, keeping: nil, now: now, in: db)
                try self.revokeCredentials(accountID: id, in: db)
            }
            return account
        }
        logger.notice(
            "account updated",
            metadata: ["account": "\(id)", "disabled": "\(updated.disabled)", "role": "\(updated.role.rawValue)", "by": "\(admin.accountID)"]
        )
        return updated
    }

    /// Ends every other module's sign-in-free credential of the account, in the caller's write.
    func revokeCredentials(accountID: Int64, in transaction: any StoreTransaction) throws {
        for revocation in revocations { try revocation.revokeCredentials(accountID: accountID, in: transaction) }
    }
}

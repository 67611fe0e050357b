public import Foundation
import Storage

/// The name a student shows other students (``DisplayNames``): chosen on `PATCH /v1/me`, or
/// suggested by the registration profile through ``AuthAccountDirectory``.
extension AuthService {
    /// The account with the name others see it by; nil when it is gone.
    public func accountWithName(id: Int64) async throws -> (account: Account, displayName: String?)? {
        try await transactions.read { [store] db in
            guard let account = try store.find(id: id, in: db) else { return nil }
            return (account, try store.displayNames(of: [id], in: db)[id]?.shown)
        }
    }

    /// Sets the name the student chose (nil or blank: back to the profile's), after
    /// ``DisplayNameRule``; answers the account with the name now shown.
    public func chooseDisplayName(_ raw: String?, accountID: Int64) async throws -> (account: Account, displayName: String?)? {
        let name = try raw.flatMap(DisplayNameRule.validate)
        return try await transactions.write { [store] db in
            guard let account = try store.find(id: accountID, in: db) else { throw AuthError.accountNotFound(nil) }
            try store.setChosenDisplayName(name, accountID: accountID, in: db)
            return (account, try store.displayNames(of: [accountID], in: db)[accountID]?.shown)
        }
    }
}

public import Contracts
public import Foundation
import Storage

/// Students' gradebook accounts, behind a protocol (``SQLiteGradebookAccountStore``). Every
/// read and write for a student names their account, so another's answers nothing.
public protocol GradebookAccountStoring: Sendable {
    /// Inserts an account with a placeholder password and returns its row id, so the caller can
    /// seal the password with the row as associated data and ``setSealedPassword`` in the same transaction.
    func insert(
        accountID: Int64, sourceID: Int64, username: String, kind: StoredGradebookAccount.CredentialKind, at now: Date, in transaction: any StoreTransaction
    ) throws -> Int64
    /// Records whether the account still works without its student.
    func setStatus(id: Int64, _ status: StoredGradebookAccount.Status, at now: Date, in transaction: any StoreTransaction) throws
    func setSealedPassword(id: Int64, sealed: String, at now: Date, in transaction: any StoreTransaction) throws
    /// Replaces a sealed password only when it still equals `expected` (key rotation).
    func replaceSealedPassword(id: Int64, expected: String, with sealed: String, in transaction: any StoreTransaction) throws -> Bool
    /// Deletes the account if its sealed password still equals `expected`.
    func deleteSealed(id: Int64, expected: String, in transaction: any StoreTransaction) throws -> Bool
    func accounts(of accountID: Int64, in transaction: any StoreTransaction) throws -> [StoredGradebookAccount]
    /// The accounts of many students (the poll tick's owners), in id order.
    func accounts(ofOwners owners: [Int64], in transaction: any StoreTransaction) throws -> [StoredGradebookAccount]
    func account(id: Int64, of accountID: Int64, in transaction: any StoreTransaction) throws -> StoredGradebookAccount?
    func account(id: Int64, in transaction: any StoreTransaction) throws -> StoredGradebookAccount?
    func find(accountID: Int64, sourceID: Int64, username: String, in transaction: any StoreTransaction) throws -> StoredGradebookAccount?
    func delete(id: Int64, of accountID: Int64, in transaction: any StoreTransaction) throws -> Bool
    /// Every stored account (rotation), in id order.
    func all(in transaction: any StoreTransaction) throws -> [StoredGradebookAccount]
}

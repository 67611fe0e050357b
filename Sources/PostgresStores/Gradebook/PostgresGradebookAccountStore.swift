import Contracts
import Foundation
import Gradebook
import PostgresNIO
import Storage
import PostgresStorage

/// ``GradebookAccountStoring`` on PostgreSQL: students' upstream accounts, passwords sealed.
/// Replacing or deleting a sealed password is conditional on the value read, so a key
/// rotation and a student's change can't overwrite each other.
struct PostgresGradebookAccountStore: GradebookAccountStoring {
    init() {}

    static let columns = "id, account_id, source_id, username, sealed_password, created_at, updated_at, credential_kind, status"

    static func account(_ row: PostgresRow) throws -> StoredGradebookAccount {
        let (id, accountID, sourceID, username, sealed, createdAt, updatedAt, kind, status) =
            try row.decode((Int64, Int64, Int64, String, String, Date, Date, String, String).self)
        return StoredGradebookAccount(
            id: id, accountID: accountID, sourceID: sourceID, username: username, sealedPassword: sealed, createdAt: createdAt, updatedAt: updatedAt,
            credentialKind: StoredGradebookAccount.CredentialKind(rawValue: kind) ?? .password, status: StoredGradebookAccount.Status(rawValue: status) ?? .ok
        )
    }

    func insert(
        accountID: Int64, sourceID: Int64, username: String, kind: StoredGradebookAccount.CredentialKind, at now: Date, in transaction: any StoreTransaction
    ) throws -> Int64 {
        try transaction.postgres().query("""
            INSERT INTO gradebook_accounts (account_id, source_id, username, sealed_password, credential_kind, created_at, updated_at)
            VALUES (\(accountID), \(sourceID), \(username), '', \(kind.rawValue), \(now), \(now)) RETURNING id
            """).first!.decode(Int64.self)
    }

    func setStatus(id: Int64, _ status: StoredGradebookAccount.Status, at now: Date, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("UPDATE gradebook_accounts SET status = \(status.rawValue), updated_at = \(now) WHERE id = \(id)")
    }

    func setSealedPassword(id: Int64, sealed: String, at now: Date, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("UPDATE gradebook_accounts SET sealed_password = \(sealed), updated_at = \(now) WHERE id = \(id)")
    }

    func replaceSealedPassword(id: Int64, expected: String, with sealed: String, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().execute(
            "UPDATE gradebook_accounts SET sealed_password = \(sealed) WHERE id = \(id) AND sealed_password = \(expected)"
        ) > 0
    }

    func deleteSealed(id: Int64, expected: String, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().execute("DELETE FROM gradebook_accounts WHERE id = \(id) AND sealed_password = \(expected)") > 0
    }

    func accounts(of accountID: Int64, in transaction: any StoreTransaction) throws -> [StoredGradebookAccount] {
        try transaction.postgres().query(
            "SELECT \(unescaped: Self.columns) FROM gradebook_accounts WHERE account_id = \(accountID) ORDER BY id"
        ).map(Self.account)
    }

    func accounts(ofOwners owners: [Int64], in transaction: any StoreTransaction) throws -> [StoredGradebookAccount] {
        guard !owners.isEmpty else { return [] }
        return try transaction.postgres().query(
            "SELECT \(unescaped: Self.columns) FROM gradebook_accounts WHERE account_id = ANY(\(owners)) ORDER BY id"
        ).map(Self.account)
    }

    func account(id: Int64, of accountID: Int64, in transaction: any StoreTransaction) throws -> StoredGradebookAccount? {
        try transaction.postgres().query(
            "SELECT \(unescaped: Self.columns) FROM gradebook_accounts WHERE id = \(id) AND account_id = \(accountID)"
        ).first.map(Self.account)
    }

    func account(id: Int64, in transaction: any StoreTransaction) throws -> StoredGradebookAccount? {
        try transaction.postgres().query("SELECT \(unescaped: Self.columns) FROM gradebook_accounts WHERE id = \(id)").first.map(Self.account)
    }

    func find(accountID: Int64, sourceID: Int64, username: String, in transaction: any StoreTransaction) throws -> StoredGradebookAccount? {
        try transaction.postgres().query("""
            SELECT \(unescaped: Self.columns) FROM gradebook_accounts
            WHERE account_id = \(accountID) AND source_id = \(sourceID) AND username = \(username)
            """).first.map(Self.account)
    }

    func delete(id: Int64, of accountID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().execute("DELETE FROM gradebook_accounts WHERE id = \(id) AND account_id = \(accountID)") > 0
    }

    func all(in transaction: any StoreTransaction) throws -> [StoredGradebookAccount] {
        try transaction.postgres().query("SELECT \(unescaped: Self.columns) FROM gradebook_accounts ORDER BY id").map(Self.account)
    }
}

import Contracts
import Foundation
import GRDB
import Gradebook
import Storage
import SQLiteStorage

struct SQLiteGradebookAccountStore: GradebookAccountStoring {
    init() {}

    func insert(
        accountID: Int64, sourceID: Int64, username: String, kind: StoredGradebookAccount.CredentialKind, at now: Date, in transaction: any StoreTransaction
    ) throws -> Int64 {
        let db = try transaction.sqlite()
        try db.execute(
            sql: """
                INSERT INTO gradebook_accounts (account_id, source_id, username, sealed_password, credential_kind, created_at, updated_at)
                VALUES (?, ?, ?, '', ?, ?, ?)
                """,
            arguments: [accountID, sourceID, username, kind.rawValue, now, now]
        )
        return db.lastInsertedRowID
    }

    func setStatus(id: Int64, _ status: StoredGradebookAccount.Status, at now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(sql: "UPDATE gradebook_accounts SET status = ?, updated_at = ? WHERE id = ?", arguments: [status.rawValue, now, id])
    }

    func setSealedPassword(id: Int64, sealed: String, at now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(sql: "UPDATE gradebook_accounts SET sealed_password = ?, updated_at = ? WHERE id = ?", arguments: [sealed, now, id])
    }

    func replaceSealedPassword(id: Int64, expected: String, with sealed: String, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.execute(
            sql: "UPDATE gradebook_accounts SET sealed_password = ? WHERE id = ? AND sealed_password = ?", arguments: [sealed, id, expected]
        )
        return db.changesCount > 0
    }

    func deleteSealed(id: Int64, expected: String, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.execute(sql: "DELETE FROM gradebook_accounts WHERE id = ? AND sealed_password = ?", arguments: [id, expected])
        return db.changesCount > 0
    }

    func accounts(of accountID: Int64, in transaction: any StoreTransaction) throws -> [StoredGradebookAccount] {
        let db = try transaction.sqlite()
        return try Row.fetchAll(db, sql: "SELECT * FROM gradebook_accounts WHERE account_id = ? ORDER BY id", arguments: [accountID]).map(Self.account)
    }

    func accounts(ofOwners owners: [Int64], in transaction: any StoreTransaction) throws -> [StoredGradebookAccount] {
        let db = try transaction.sqlite()
        var found: [StoredGradebookAccount] = []
        // A chunk at a time: more owners than one statement may bind.
        for start in stride(from: 0, to: owners.count, by: 500) {
            let chunk = Array(owners[start..<min(start + 500, owners.count)])
            found += try Row.fetchAll(
                db, sql: "SELECT * FROM gradebook_accounts WHERE account_id IN (\(databaseQuestionMarks(count: chunk.count)))",
                arguments: StatementArguments(chunk)
            ).map(Self.account)
        }
        return found.sorted { $0.id < $1.id }
    }

    func account(id: Int64, of accountID: Int64, in transaction: any StoreTransaction) throws -> StoredGradebookAccount? {
        let db = try transaction.sqlite()
        return try Row.fetchOne(db, sql: "SELECT * FROM gradebook_accounts WHERE id = ? AND account_id = ?", arguments: [id, accountID]).map(Self.account)
    }

    func account(id: Int64, in transaction: any StoreTransaction) throws -> StoredGradebookAccount? {
        let db = try transaction.sqlite()
        return try Row.fetchOne(db, sql: "SELECT * FROM gradebook_accounts WHERE id = ?", arguments: [id]).map(Self.account)
    }

    func find(accountID: Int64, sourceID: Int64, username: String, in transaction: any StoreTransaction) throws -> StoredGradebookAccount? {
        let db = try transaction.sqlite()
        return try Row.fetchOne(
            db, sql: "SELECT * FROM gradebook_accounts WHERE account_id = ? AND source_id = ? AND username = ?",
            arguments: [accountID, sourceID, username]
        ).map(Self.account)
    }

    func delete(id: Int64, of accountID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.execute(sql: "DELETE FROM gradebook_accounts WHERE id = ? AND account_id = ?", arguments: [id, accountID])
        return db.changesCount > 0
    }

    func all(in transaction: any StoreTransaction) throws -> [StoredGradebookAccount] {
        let db = try transaction.sqlite()
        return try Row.fetchAll(db, sql: "SELECT * FROM gradebook_accounts ORDER BY id").map(Self.account)
    }

    static func account(_ row: Row) -> StoredGradebookAccount {
        StoredGradebookAccount(
            id: row["id"], accountID: row["account_id"], sourceID: row["source_id"], username: row["username"],
            sealedPassword: row["sealed_password"], createdAt: row["created_at"], updatedAt: row["updated_at"],
            credentialKind: StoredGradebookAccount.CredentialKind(rawValue: row["credential_kind"]) ?? .password,
            status: StoredGradebookAccount.Status(rawValue: row["status"]) ?? .ok
        )
    }
}

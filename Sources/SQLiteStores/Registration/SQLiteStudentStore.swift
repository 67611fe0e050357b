import Catalog
import Contracts
import Foundation
import GRDB
import Registration
import Storage
import SQLiteStorage

/// ``StudentStoring`` on SQLite: SQL for student profiles and the red id roster.
struct SQLiteStudentStore: StudentStoring {
    init() {}

    func insert(_ profile: StudentProfile, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try Self.redIDUnique {
            try db.cachedStatement(sql: """
                    INSERT INTO registration_students (account_id, red_id, first_name, last_name, email, created_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """).execute(arguments: [profile.accountID, profile.redID, profile.firstName, profile.lastName, profile.email, profile.createdAt])
        }
    }

    /// A unique violation on the students table means the red id is taken.
    static func redIDUnique(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE
            || error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY {
            throw RegistrationError.redIDInUse
        }
    }

    func update(_ profile: StudentProfile, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try Self.redIDUnique {
            try db.cachedStatement(sql: "UPDATE registration_students SET red_id = ?, first_name = ?, last_name = ?, email = ? WHERE account_id = ?")
                .execute(arguments: [profile.redID, profile.firstName, profile.lastName, profile.email, profile.accountID])
        }
    }

    func profile(accountID: Int64, in transaction: any StoreTransaction) throws -> StudentProfile? {
        let db = try transaction.sqlite()
        return try Row.fetchOne(
            db.cachedStatement(sql: "SELECT account_id, red_id, first_name, last_name, email, created_at FROM registration_students WHERE account_id = ?"),
            arguments: [accountID]
        ).map(Self.profile(from:))
    }

    func profile(redID: String, in transaction: any StoreTransaction) throws -> StudentProfile? {
        let db = try transaction.sqlite()
        return try Row.fetchOne(
            db.cachedStatement(sql: "SELECT account_id, red_id, first_name, last_name, email, created_at FROM registration_students WHERE red_id = ?"),
            arguments: [redID]
        ).map(Self.profile(from:))
    }

    // MARK: Roster

    func isOnRoster(_ redID: String, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        return try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM registration_red_id_roster WHERE red_id = ?)"), arguments: [redID]
        ) ?? false
    }

    /// Replaces the roster with `redIDs`; returns how many it now holds.
    func replaceRoster(_ redIDs: [String], now: Date, in transaction: any StoreTransaction) throws -> Int {
        let db = try transaction.sqlite()
        try db.cachedStatement(sql: "DELETE FROM registration_red_id_roster").execute()
        let statement = try db.makeStatement(sql: "INSERT OR IGNORE INTO registration_red_id_roster (red_id, added_at) VALUES (?, ?)")
        for redID in redIDs { try statement.execute(arguments: [redID, now]) }
        return try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM registration_red_id_roster")) ?? 0
    }

    func rosterCount(in transaction: any StoreTransaction) throws -> Int {
        let db = try transaction.sqlite()
        return try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM registration_red_id_roster")) ?? 0
    }

    static func profile(from row: Row) -> StudentProfile {
        StudentProfile(
            accountID: row["account_id"], redID: row["red_id"], firstName: row["first_name"], lastName: row["last_name"],
            email: row["email"], createdAt: row["created_at"]
        )
    }
}

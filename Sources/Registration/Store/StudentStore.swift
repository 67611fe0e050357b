public import Catalog
public import Foundation
public import GRDB

/// A student profile: the person behind an account, as the SDSU protocol knows them.
public struct StudentProfile: Sendable, Equatable, Codable {
    public var accountID: Int64
    public var redID: String
    public var firstName: String
    public var lastName: String
    public var email: String
    public var createdAt: Date
}

/// SQL for student profiles and the red id roster.
public enum StudentStore {
    public static func insert(_ profile: StudentProfile, in db: Database) throws {
        try db.cachedStatement(sql: """
                INSERT INTO registration_students (account_id, red_id, first_name, last_name, email, created_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """).execute(arguments: [profile.accountID, profile.redID, profile.firstName, profile.lastName, profile.email, profile.createdAt])
    }

    public static func update(_ profile: StudentProfile, in db: Database) throws {
        try db.cachedStatement(sql: "UPDATE registration_students SET red_id = ?, first_name = ?, last_name = ?, email = ? WHERE account_id = ?")
            .execute(arguments: [profile.redID, profile.firstName, profile.lastName, profile.email, profile.accountID])
    }

    public static func profile(accountID: Int64, in db: Database) throws -> StudentProfile? {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT account_id, red_id, first_name, last_name, email, created_at FROM registration_students WHERE account_id = ?"),
            arguments: [accountID]
        ).map(profile(from:))
    }

    public static func profile(redID: String, in db: Database) throws -> StudentProfile? {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT account_id, red_id, first_name, last_name, email, created_at FROM registration_students WHERE red_id = ?"),
            arguments: [redID]
        ).map(profile(from:))
    }

    // MARK: Roster

    public static func isOnRoster(_ redID: String, in db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM registration_red_id_roster WHERE red_id = ?)"), arguments: [redID]
        ) ?? false
    }

    /// Replaces the roster with `redIDs`; returns how many it now holds.
    public static func replaceRoster(_ redIDs: [String], now: Date, in db: Database) throws -> Int {
        try db.cachedStatement(sql: "DELETE FROM registration_red_id_roster").execute()
        let statement = try db.makeStatement(sql: "INSERT OR IGNORE INTO registration_red_id_roster (red_id, added_at) VALUES (?, ?)")
        for redID in redIDs { try statement.execute(arguments: [redID, now]) }
        return try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM registration_red_id_roster")) ?? 0
    }

    public static func rosterCount(in db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM registration_red_id_roster")) ?? 0
    }

    static func profile(from row: Row) -> StudentProfile {
        StudentProfile(
            accountID: row["account_id"], redID: row["red_id"], firstName: row["first_name"], lastName: row["last_name"],
            email: row["email"], createdAt: row["created_at"]
        )
    }
}

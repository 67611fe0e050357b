import Foundation
import GRDB

/// A student profile: the person behind an account, as the SDSU protocol knows them.
public struct StudentProfile: Sendable, Equatable, Codable {
    public var accountID: Int64
    public var redID: String
    public var firstName: String
    public var lastName: String
    public var email: String
    public var createdAt: Date
}

/// What checking a red id and password needs: the account and its current password hash.
struct StudentCredentialRow: Sendable {
    let accountID: Int64
    let passwordHash: String
    let disabled: Bool
}

/// SQL for student profiles and the red id roster.
public enum StudentStore {
    public static func insert(_ profile: StudentProfile, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO registration_students (account_id, red_id, first_name, last_name, email, created_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
            arguments: [profile.accountID, profile.redID, profile.firstName, profile.lastName, profile.email, profile.createdAt]
        )
    }

    public static func update(_ profile: StudentProfile, in db: Database) throws {
        try db.execute(
            sql: "UPDATE registration_students SET red_id = ?, first_name = ?, last_name = ?, email = ? WHERE account_id = ?",
            arguments: [profile.redID, profile.firstName, profile.lastName, profile.email, profile.accountID]
        )
    }

    public static func profile(accountID: Int64, in db: Database) throws -> StudentProfile? {
        try Row.fetchOne(
            db,
            sql: "SELECT account_id, red_id, first_name, last_name, email, created_at FROM registration_students WHERE account_id = ?",
            arguments: [accountID]
        ).map(profile(from:))
    }

    public static func profile(redID: String, in db: Database) throws -> StudentProfile? {
        try Row.fetchOne(
            db,
            sql: "SELECT account_id, red_id, first_name, last_name, email, created_at FROM registration_students WHERE red_id = ?",
            arguments: [redID]
        ).map(profile(from:))
    }

    /// Whether the red id belongs to a student, or is the username of any account (an
    /// SDSU-created student's username is their red id).
    public static func isRedIDTaken(_ redID: String, in db: Database) throws -> Bool {
        try Bool.fetchOne(
            db,
            sql: """
                SELECT EXISTS (SELECT 1 FROM registration_students WHERE red_id = ?)
                    OR EXISTS (SELECT 1 FROM accounts WHERE username = ?)
                """,
            arguments: [redID, redID]
        ) ?? false
    }

    static func credentials(redID: String, in db: Database) throws -> StudentCredentialRow? {
        try Row.fetchOne(
            db,
            sql: """
                SELECT a.id, a.password_hash, a.disabled FROM registration_students s
                JOIN accounts a ON a.id = s.account_id WHERE s.red_id = ?
                """,
            arguments: [redID]
        ).map { StudentCredentialRow(accountID: $0[0], passwordHash: $0[1], disabled: $0[2]) }
    }

    // MARK: Roster

    public static func isOnRoster(_ redID: String, in db: Database) throws -> Bool {
        try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM registration_red_id_roster WHERE red_id = ?)", arguments: [redID]
        ) ?? false
    }

    /// Replaces the roster with `redIDs`; returns how many it now holds.
    public static func replaceRoster(_ redIDs: [String], now: Date, in db: Database) throws -> Int {
        try db.execute(sql: "DELETE FROM registration_red_id_roster")
        let statement = try db.makeStatement(sql: "INSERT OR IGNORE INTO registration_red_id_roster (red_id, added_at) VALUES (?, ?)")
        for redID in redIDs { try statement.execute(arguments: [redID, now]) }
        return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM registration_red_id_roster") ?? 0
    }

    public static func rosterCount(in db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM registration_red_id_roster") ?? 0
    }

    static func profile(from row: Row) -> StudentProfile {
        StudentProfile(accountID: row[0], redID: row[1], firstName: row[2], lastName: row[3], email: row[4], createdAt: row[5])
    }
}

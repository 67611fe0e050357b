import Contracts
import Foundation
import PostgresNIO
import Registration
import Storage
import PostgresStorage

/// ``StudentStoring`` on PostgreSQL. A red id taken by another profile is
/// ``RegistrationError/redIDInUse``, the statement undone by its savepoint.
struct PostgresStudentStore: StudentStoring {
    init() {}

    static let columns = "account_id, red_id, first_name, last_name, email, created_at"

    static func profile(_ row: PostgresRow) throws -> StudentProfile {
        let (accountID, redID, first, last, email, createdAt) = try row.decode((Int64, String, String, String, String, Date).self)
        return StudentProfile(accountID: accountID, redID: redID, firstName: first, lastName: last, email: email, createdAt: createdAt)
    }

    static func redIDUnique(_ transaction: PostgresTransaction, _ body: () throws -> Void) throws {
        do {
            try transaction.savepoint(body)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw RegistrationError.redIDInUse
        }
    }

    func insert(_ profile: StudentProfile, in transaction: any StoreTransaction) throws {
        let transaction = try transaction.postgres()
        try Self.redIDUnique(transaction) {
            try transaction.execute("""
                INSERT INTO registration_students (account_id, red_id, first_name, last_name, email, created_at)
                VALUES (\(profile.accountID), \(profile.redID), \(profile.firstName), \(profile.lastName), \(profile.email), \(profile.createdAt))
                """)
        }
    }

    func update(_ profile: StudentProfile, in transaction: any StoreTransaction) throws {
        let transaction = try transaction.postgres()
        try Self.redIDUnique(transaction) {
            try transaction.execute("""
                UPDATE registration_students SET red_id = \(profile.redID), first_name = \(profile.firstName), last_name = \(profile.lastName),
                    email = \(profile.email)
                WHERE account_id = \(profile.accountID)
                """)
        }
    }

    func profile(accountID: Int64, in transaction: any StoreTransaction) throws -> StudentProfile? {
        try transaction.postgres().query("SELECT \(unescaped: Self.columns) FROM registration_students WHERE account_id = \(accountID)")
            .first.map(Self.profile)
    }

    func profile(redID: String, in transaction: any StoreTransaction) throws -> StudentProfile? {
        try transaction.postgres().query("SELECT \(unescaped: Self.columns) FROM registration_students WHERE red_id = \(redID)")
            .first.map(Self.profile)
    }

    func isOnRoster(_ redID: String, in transaction: any StoreTransaction) throws -> Bool {
        try !transaction.postgres().query("SELECT 1 FROM registration_red_id_roster WHERE red_id = \(redID)").isEmpty
    }

    func replaceRoster(_ redIDs: [String], now: Date, in transaction: any StoreTransaction) throws -> Int {
        let transaction = try transaction.postgres()
        try transaction.execute("DELETE FROM registration_red_id_roster")
        try transaction.execute("""
            INSERT INTO registration_red_id_roster (red_id, added_at) SELECT DISTINCT r, \(now)::timestamptz FROM unnest(\(redIDs)::text[]) AS r
            ON CONFLICT DO NOTHING
            """)
        return try rosterCount(in: transaction)
    }

    func rosterCount(in transaction: any StoreTransaction) throws -> Int {
        try transaction.postgres().query("SELECT COUNT(*) FROM registration_red_id_roster").first?.decode(Int.self) ?? 0
    }
}

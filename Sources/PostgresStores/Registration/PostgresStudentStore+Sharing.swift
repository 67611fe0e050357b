import Contracts
import Foundation
import PostgresNIO
import PostgresStorage
import Registration

/// Enrollments shared with friends (`registration_enrollment_sharing`), on PostgreSQL.
extension PostgresStudentStore {
    func setSharesEnrollments(_ shares: Bool, accountID: Int64, at now: Date, in transaction: any StoreTransaction) throws {
        if shares {
            try transaction.postgres().execute("""
                INSERT INTO registration_enrollment_sharing (account_id, since) VALUES (\(accountID), \(now)) ON CONFLICT (account_id) DO NOTHING
                """)
        } else {
            try transaction.postgres().execute("DELETE FROM registration_enrollment_sharing WHERE account_id = \(accountID)")
        }
    }

    func sharesEnrollments(accountID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        try !transaction.postgres().query("SELECT 1 FROM registration_enrollment_sharing WHERE account_id = \(accountID)").isEmpty
    }

    func sharedEnrollments(of accountIDs: [Int64], in transaction: any StoreTransaction) throws -> [Int64: [Int64]] {
        guard !accountIDs.isEmpty else { return [:] }
        let postgres = try transaction.postgres()
        var classes: [Int64: [Int64]] = [:]
        for row in try postgres.query("SELECT account_id FROM registration_enrollment_sharing WHERE account_id = ANY(\(accountIDs))") {
            classes[try row.decode(Int64.self)] = []
        }
        for row in try postgres.query("""
            SELECT e.student_id, e.class_id FROM registration_enrollments e
            JOIN registration_enrollment_sharing s ON s.account_id = e.student_id
            WHERE e.student_id = ANY(\(accountIDs)) ORDER BY e.student_id, e.class_id
            """) {
            let (student, classID) = try row.decode((Int64, Int64).self)
            classes[student, default: []].append(classID)
        }
        return classes
    }
}

import Contracts
import Foundation
import GRDB
import Registration
import SQLiteStorage

/// Enrollments shared with friends (`registration_enrollment_sharing`), on SQLite.
extension SQLiteStudentStore {
    func setSharesEnrollments(_ shares: Bool, accountID: Int64, at now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        if shares {
            try db.execute(
                sql: "INSERT INTO registration_enrollment_sharing (account_id, since) VALUES (?, ?) ON CONFLICT (account_id) DO NOTHING",
                arguments: [accountID, now]
            )
        } else {
            try db.execute(sql: "DELETE FROM registration_enrollment_sharing WHERE account_id = ?", arguments: [accountID])
        }
    }

    func sharesEnrollments(accountID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        try Bool.fetchOne(
            transaction.sqlite(), sql: "SELECT 1 FROM registration_enrollment_sharing WHERE account_id = ?", arguments: [accountID]
        ) ?? false
    }

    func sharedEnrollments(of accountIDs: [Int64], in transaction: any StoreTransaction) throws -> [Int64: [Int64]] {
        guard !accountIDs.isEmpty else { return [:] }
        let db = try transaction.sqlite()
        var classes: [Int64: [Int64]] = [:]
        for start in stride(from: 0, to: accountIDs.count, by: 500) {
            let chunk = Array(accountIDs[start..<min(start + 500, accountIDs.count)])
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            for id in try Int64.fetchAll(
                db, sql: "SELECT account_id FROM registration_enrollment_sharing WHERE account_id IN (\(marks))", arguments: StatementArguments(chunk)
            ) { classes[id] = [] }
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT e.student_id, e.class_id FROM registration_enrollments e
                    JOIN registration_enrollment_sharing s ON s.account_id = e.student_id
                    WHERE e.student_id IN (\(marks)) ORDER BY e.student_id, e.class_id
                    """,
                arguments: StatementArguments(chunk)
            ) {
                classes[row["student_id"], default: []].append(row["class_id"])
            }
        }
        return classes
    }
}

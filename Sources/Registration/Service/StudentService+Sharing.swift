public import Foundation
import Storage
import GatewayCore

/// Whether a student's friends see the classes they are enrolled in (`shareEnrollments`).
/// Enrollments are private until the student says otherwise.
extension StudentService {
    /// Lets (or stops letting) the student's friends see their enrollments; a student without
    /// a profile has none to share (``RegistrationError/profileRequired``).
    public func shareEnrollments(_ shares: Bool, accountID: Int64) async throws {
        let now = clock.now()
        let stores = self.stores
        try await transactions.write { db in
            guard try stores.students.profile(accountID: accountID, in: db) != nil else { throw RegistrationError.profileRequired }
            try stores.students.setSharesEnrollments(shares, accountID: accountID, at: now, in: db)
        }
    }

    /// Whether the student shares their enrollments with friends.
    public func sharesEnrollments(accountID: Int64) async throws -> Bool {
        let stores = self.stores
        return try await transactions.read { db in try stores.students.sharesEnrollments(accountID: accountID, in: db) }
    }
}

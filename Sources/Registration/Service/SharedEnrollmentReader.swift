public import Contracts
import Foundation
public import Storage

/// Registration's answer to ``SharedEnrollments`` and ``FriendVisibleClasses``: the classes
/// students who share their enrollments are enrolled in. It reads the student store alone, so
/// the Friends module, built before Registration, can hold one
/// (``RegistrationModule/sharedEnrollments(transactions:students:)``).
public struct SharedEnrollmentReader: SharedEnrollments, FriendVisibleClasses {
    let transactions: any TransactionRunner
    let students: any StudentStoring

    public init(transactions: any TransactionRunner, students: any StudentStoring) {
        self.transactions = transactions
        self.students = students
    }

    public func sharedEnrollments(of accountIDs: [Int64]) async throws -> [Int64: [Int64]] {
        guard !accountIDs.isEmpty else { return [:] }
        let students = self.students
        return try await transactions.readPreferringInline { db in try students.sharedEnrollments(of: accountIDs, in: db) }
    }

    public func classesVisibleToFriends(of accountIDs: [Int64]) async throws -> [Int64: Set<Int64>] {
        try await sharedEnrollments(of: accountIDs).mapValues(Set.init)
    }
}

public import Contracts
import Foundation
public import Storage

/// Scheduling's answer to ``FriendVisibleClasses``: the classes of students' friends-visible
/// saved schedules. It reads the schedule store alone, so the Friends module, built before
/// Scheduling, can hold one (``SchedulingModule/friendVisibleSchedules(transactions:stores:)``).
public struct FriendVisibleSchedules: FriendVisibleClasses {
    let transactions: any TransactionRunner
    let schedules: any SavedScheduleStoring

    public init(transactions: any TransactionRunner, schedules: any SavedScheduleStoring) {
        self.transactions = transactions
        self.schedules = schedules
    }

    public func classesVisibleToFriends(of accountIDs: [Int64]) async throws -> [Int64: Set<Int64>] {
        guard !accountIDs.isEmpty else { return [:] }
        let schedules = self.schedules
        let visible = try await transactions.readPreferringInline { db in try schedules.friendsVisibleSchedules(of: accountIDs, term: nil, in: db) }
        var classes: [Int64: Set<Int64>] = [:]
        for schedule in visible { classes[schedule.accountID, default: []].formUnion(schedule.classIDs) }
        return classes
    }
}

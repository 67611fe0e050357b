public import Catalog
public import Contracts
import Foundation
public import Storage

/// What a student's friends let them see (`GET /v1/me/friends/schedules`): each friend's
/// friends-visible saved schedules and, where the friend shares them, their enrollments. The
/// friendships are read on every call (``FriendCircle``), so an unfriend or a block ends the
/// view on the next request.
public struct FriendSchedulesService: Sendable {
    let transactions: any TransactionRunner
    let schedules: any SavedScheduleStoring
    let friends: any FriendCircle
    let enrollments: any SharedEnrollments
    let catalog: CatalogService

    public init(
        transactions: any TransactionRunner, schedules: any SavedScheduleStoring, friends: any FriendCircle, enrollments: any SharedEnrollments,
        catalog: CatalogService
    ) {
        self.transactions = transactions
        self.schedules = schedules
        self.friends = friends
        self.enrollments = enrollments
        self.catalog = catalog
    }

    /// One friend's plans as the student sees them.
    public struct FriendPlans: Sendable {
        public var friend: FriendRef
        public var schedules: [SavedSchedule]
        /// The friend's enrolled classes (of the term asked for), nil when they don't share them.
        public var enrolledClassIDs: [Int64]?
    }

    /// The student's friends, each with what they share; `term` narrows schedules and
    /// enrollments to one term.
    public func plans(of accountID: Int64, term: String?) async throws -> [FriendPlans] {
        let circle = try await friends.friends(of: accountID)
        guard !circle.isEmpty else { return [] }
        let ids = circle.map(\.accountID)
        let schedules = self.schedules
        let visible = try await transactions.readPreferringInline { db in try schedules.friendsVisibleSchedules(of: ids, term: term, in: db) }
        let shared = try await enrollments.sharedEnrollments(of: ids)
        let snapshot = try await catalog.snapshot()
        let byOwner = Dictionary(grouping: visible, by: \.accountID)
        return circle.map { friend in
            let enrolled = shared[friend.accountID].map { classIDs in
                term.map { term in classIDs.filter { snapshot.listing(id: $0)?.info.term == term } } ?? classIDs
            }
            return FriendPlans(friend: friend, schedules: byOwner[friend.accountID] ?? [], enrolledClassIDs: enrolled)
        }
    }
}

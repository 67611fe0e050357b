import Auth
import Contracts
import Foundation
import GatewayCore
import PostgresStores
import SQLiteStores
import Scheduling
import Storage
import TestSupport
import Testing

/// Scheduling's stores under test, with Auth's accounts that their rows belong to.
struct SchedulingTestStores: Sendable {
    let stores: SchedulingStores
    let accounts: any AccountStoring
}

/// The backends every test of ``SchedulingStoreConformance`` runs on.
enum SchedulingBackend {
    static let all: [StoreBackend<SchedulingTestStores>] = [
        .sqlite("scheduling-conformance", modules: [AuthSchema.self, SchedulingSchema.self]) { _ in SchedulingTestStores(stores: .sqlite(), accounts: SQLiteAccountStore()) },
        .postgres("scheduling", modules: [AuthSchema.self, SchedulingSchema.self]) { _ in SchedulingTestStores(stores: .postgres(), accounts: PostgresAccountStore()) },
    ]
}

/// The promises Scheduling's stores make, through their protocols only: a schedule or feed is
/// reached only through its owner, a calendar's revision moves only when its content does, and
/// ratings are replaced or merged as asked.
@Suite("Scheduling store conformance")
struct SchedulingStoreConformance {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func withStores(
        _ backend: StoreBackend<SchedulingTestStores>, _ body: (any TransactionRunner, SchedulingStores, [Int64]) async throws -> Void
    ) async throws {
        try await backend.with { transactions, under in
            let (stores, accounts) = (under.stores, under.accounts)
            let owners = try await transactions.write { tx throws in
                try ["ada", "grace"].map { name in
                    try #require(try accounts.insert(Account(username: name, email: nil, passwordHash: "x", role: .student, createdAt: Self.start), in: tx).id)
                }
            }
            try await body(transactions, stores, owners)
        }
    }

    @Test(arguments: SchedulingBackend.all)
    func aSavedScheduleIsReachedOnlyThroughItsOwner(_ backend: StoreBackend<SchedulingTestStores>) async throws {
        try await Self.withStores(backend) { transactions, stores, owners in
            let (ada, grace) = (owners[0], owners[1])
            let saved = try await transactions.write { tx throws in
                try stores.savedSchedules.insert(accountID: ada, name: "Plan A", term: "2025-fall", classIDs: [7036, 7030], at: Self.start, in: tx)
            }
            #expect(saved.classIDs == [7036, 7030] && saved.accountID == ada)
            try await transactions.write { tx throws in
                #expect(try stores.savedSchedules.schedule(id: saved.id, of: grace, in: tx) == nil)
                #expect(try stores.savedSchedules.update(id: saved.id, of: grace, name: "Mine", classIDs: nil, at: Self.start, in: tx) == nil)
                #expect(try !stores.savedSchedules.delete(id: saved.id, of: grace, in: tx))
                let renamed = try #require(try stores.savedSchedules.update(id: saved.id, of: ada, name: "Plan B", classIDs: nil, at: Self.start + 60, in: tx))
                #expect(renamed.name == "Plan B" && renamed.classIDs == [7036, 7030] && renamed.updatedAt == Self.start + 60)
                let reclassed = try #require(try stores.savedSchedules.update(id: saved.id, of: ada, name: nil, classIDs: [1], at: Self.start + 120, in: tx))
                #expect(reclassed.name == "Plan B" && reclassed.classIDs == [1])
                #expect(try stores.savedSchedules.count(of: ada, in: tx) == 1 && stores.savedSchedules.count(of: grace, in: tx) == 0)
            }
            try await transactions.write { tx throws in
                try stores.scheduleFeeds.setFeed(scheduleID: saved.id, accountID: ada, tokenHash: Data([1, 2]), at: Self.start, in: tx)
                // Another account can't take over the feed of a schedule that isn't theirs.
                try stores.scheduleFeeds.setFeed(scheduleID: saved.id, accountID: grace, tokenHash: Data([9]), at: Self.start, in: tx)
                #expect(try stores.scheduleFeeds.feedTarget(tokenHash: Data([1, 2]), in: tx).map { [$0.scheduleID, $0.accountID] } == [saved.id, ada])
                #expect(try stores.scheduleFeeds.feedTarget(tokenHash: Data([9]), in: tx) == nil)
                #expect(try !stores.scheduleFeeds.deleteFeed(scheduleID: saved.id, accountID: grace, in: tx))
                #expect(try stores.savedSchedules.delete(id: saved.id, of: ada, in: tx))
                #expect(try stores.scheduleFeeds.feedTarget(tokenHash: Data([1, 2]), in: tx) == nil, "the feed goes with its schedule")
            }
        }
    }

    @Test(arguments: SchedulingBackend.all)
    func aCalendarRevisionMovesOnlyWhenItsContentDoes(_ backend: StoreBackend<SchedulingTestStores>) async throws {
        try await Self.withStores(backend) { transactions, stores, owners in
            try await transactions.write { tx throws in
                let first = try stores.calendars.revision(of: "account:1", contentHash: "a", at: Self.start, in: tx)
                #expect(first == CalendarRevision(contentHash: "a", changedAt: Self.start, sequence: 0))
                #expect(try stores.calendars.revision(of: "account:1", contentHash: "a", at: Self.start + 10, in: tx) == first)
                let second = try stores.calendars.revision(of: "account:1", contentHash: "b", at: Self.start, in: tx)
                #expect(second.sequence == 1 && second.changedAt == Self.start + 1, "always after the last change")
                try stores.calendars.forget(calendar: "account:1", in: tx)
                #expect(try stores.calendars.revision(of: "account:1", contentHash: "b", at: Self.start, in: tx).sequence == 0)

                try stores.calendars.setFeed(accountID: owners[0], tokenHash: Data([7]), at: Self.start, in: tx)
                try stores.calendars.setFeed(accountID: owners[0], tokenHash: Data([8]), at: Self.start + 5, in: tx)
                #expect(try stores.calendars.feedOwner(tokenHash: Data([7]), in: tx) == nil, "a new token replaces the old")
                #expect(try stores.calendars.feedOwner(tokenHash: Data([8]), in: tx) == owners[0])
                #expect(try stores.calendars.feedCreatedAt(accountID: owners[0], in: tx) == Self.start + 5)
                #expect(try stores.calendars.deleteFeed(accountID: owners[0], in: tx))
                #expect(try !stores.calendars.deleteFeed(accountID: owners[0], in: tx))
            }
        }
    }

    @Test(arguments: SchedulingBackend.all)
    func ratingsMergeOrReplace(_ backend: StoreBackend<SchedulingTestStores>) async throws {
        try await Self.withStores(backend) { transactions, stores, _ in
            let first = RatingsDocument(courses: [.init(course: "CS 310", averageGPA: 3.1)], instructors: [.init(name: "M. Curie", rating: 4.5)])
            let second = RatingsDocument(courses: [.init(course: "CS 320", averageGPA: 2.9)], instructors: [])
            try await transactions.write { tx throws in
                try stores.ratings.apply(first, replace: false, at: Self.start, in: tx)
                try stores.ratings.apply(second, replace: false, at: Self.start, in: tx)
                #expect(try stores.ratings.counts(in: tx) == (2, 1))
                try stores.ratings.apply(second, replace: true, at: Self.start, in: tx)
                #expect(try stores.ratings.counts(in: tx) == (1, 0))
                #expect(try stores.ratings.book(in: tx).courseGPAs == [RatingBook.key(forCourse: "CS 320"): 2.9])
            }
        }
    }
}

public import Foundation
import GatewayCore
import Storage

/// Saved schedules' subscription feeds: each schedule may have one secret address
/// (`/calendar/{token}.ics`, the same place as the registration feed) showing that schedule's
/// calendar as it stands. Another student's schedule is not found, whatever the use.
extension CalendarService {
    /// Creates the schedule's feed, revoking any earlier one; the token is returned only now.
    public func createScheduleFeed(scheduleID: Int64, accountID: Int64) async throws -> NewFeed {
        let token = Self.newToken()
        let hash = Self.hash(token: token)
        let now = clock.now()
        try await transactions.write { [schedules, scheduleFeeds] db in
            guard try schedules.schedule(id: scheduleID, of: accountID, in: db) != nil else { throw SchedulingError.scheduleNotFound }
            try scheduleFeeds.setFeed(scheduleID: scheduleID, accountID: accountID, tokenHash: hash, at: now, in: db)
        }
        return NewFeed(token: token, createdAt: now)
    }

    /// When the schedule's feed was created: 404 `schedule-not-found` for a schedule that is not
    /// the student's, `calendar-feed-not-found` when it has no feed.
    public func scheduleFeedCreatedAt(scheduleID: Int64, accountID: Int64) async throws -> Date {
        let createdAt = try await transactions.read { [schedules, scheduleFeeds] db -> Date? in
            guard try schedules.schedule(id: scheduleID, of: accountID, in: db) != nil else { throw SchedulingError.scheduleNotFound }
            return try scheduleFeeds.feedCreatedAt(scheduleID: scheduleID, accountID: accountID, in: db)
        }
        guard let createdAt else { throw SchedulingError.feedNotFound }
        return createdAt
    }

    /// Revokes the schedule's feed: its address answers 404 from now on.
    public func revokeScheduleFeed(scheduleID: Int64, accountID: Int64) async throws {
        let deleted = try await transactions.write { [schedules, scheduleFeeds] db in
            guard try schedules.schedule(id: scheduleID, of: accountID, in: db) != nil else { throw SchedulingError.scheduleNotFound }
            return try scheduleFeeds.deleteFeed(scheduleID: scheduleID, accountID: accountID, in: db)
        }
        guard deleted else { throw SchedulingError.feedNotFound }
    }
}

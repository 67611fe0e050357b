public import Foundation
public import GatewayCore
public import Storage

/// Share links of saved schedules: a student makes a link to one of their schedules that shows
/// it to anyone who holds it (its classes and meetings, never the owner's account), lists and
/// revokes them; anyone holding a live link reads the schedule and its calendar. The token is
/// 256 random bits, shown once; only its SHA-256 is kept. A revoked, expired or unknown token
/// is the same 404, reached the same way (one indexed lookup by hash).
public final class ShareLinkService: Sendable {
    let transactions: any TransactionRunner
    let links: any ShareLinkStoring
    let schedules: any SavedScheduleStoring
    let calendars: CalendarService
    let clock: any GatewayClock
    /// Anonymous reads per client network (IPv6 /64); nil: unlimited.
    let reads: RateLimit?

    public init(
        transactions: any TransactionRunner, links: any ShareLinkStoring, schedules: any SavedScheduleStoring,
        calendars: CalendarService, clock: any GatewayClock, readsPerMinute: Int = 120
    ) {
        self.transactions = transactions
        self.links = links
        self.schedules = schedules
        self.calendars = calendars
        self.clock = clock
        self.reads = readsPerMinute > 0 ? RateLimit(limit: readsPerMinute, window: 60) : nil
    }

    /// A link made now, with its token (shown only here).
    public struct NewLink: Sendable {
        public var link: ShareLink
        public var token: String
    }

    /// Makes a link to the student's schedule lasting `expiry`: 404 `schedule-not-found` for a
    /// schedule that is not theirs, 409 `share-link-limit` past ``ShareLink/limitPerSchedule``
    /// live links.
    public func create(scheduleID: Int64, accountID: Int64, expiry: ShareLinkExpiry) async throws -> NewLink {
        let token = CalendarService.newToken()
        let hash = CalendarService.hash(token: token)
        let now = clock.now()
        let link = try await transactions.write { [schedules, links] db in
            guard try schedules.schedule(id: scheduleID, of: accountID, in: db) != nil else { throw SchedulingError.scheduleNotFound }
            _ = try links.deleteExpired(scheduleID: scheduleID, at: now, in: db)
            guard try links.liveLinks(scheduleID: scheduleID, accountID: accountID, at: now, in: db).count < ShareLink.limitPerSchedule else {
                throw SchedulingError.shareLinkLimit(ShareLink.limitPerSchedule)
            }
            return try links.insert(
                scheduleID: scheduleID, accountID: accountID, tokenHash: hash, at: now, expiresAt: expiry.expiresAt(from: now), in: db
            )
        }
        return NewLink(link: link, token: token)
    }

    /// The schedule's live links, oldest first (never their tokens).
    public func links(scheduleID: Int64, accountID: Int64) async throws -> [ShareLink] {
        let now = clock.now()
        return try await transactions.read { [schedules, links] db in
            guard try schedules.schedule(id: scheduleID, of: accountID, in: db) != nil else { throw SchedulingError.scheduleNotFound }
            return try links.liveLinks(scheduleID: scheduleID, accountID: accountID, at: now, in: db)
        }
    }

    /// Revokes one of the schedule's links: its address answers 404 from the next request on.
    public func revoke(linkID: Int64, scheduleID: Int64, accountID: Int64) async throws {
        let deleted = try await transactions.write { [schedules, links] db in
            guard try schedules.schedule(id: scheduleID, of: accountID, in: db) != nil else { throw SchedulingError.scheduleNotFound }
            return try links.delete(id: linkID, scheduleID: scheduleID, accountID: accountID, in: db)
        }
        guard deleted else { throw SchedulingError.shareLinkNotFound }
    }

    /// The schedule a live link shows. `clientAddress` keys the anonymous reads' limit.
    public func shared(token: String, clientAddress: String?) async throws -> SavedSchedule {
        let (scheduleID, accountID) = try await target(token: token, clientAddress: clientAddress)
        let saved = try await transactions.read { [schedules] db in try schedules.schedule(id: scheduleID, of: accountID, in: db) }
        guard let saved else { throw SchedulingError.sharedScheduleNotFound }
        return saved
    }

    /// The calendar of the schedule a live link shows.
    public func sharedCalendar(token: String, clientAddress: String?) async throws -> CalendarService.ExportedCalendar {
        let (scheduleID, accountID) = try await target(token: token, clientAddress: clientAddress)
        do {
            return try await calendars.scheduleCalendar(id: scheduleID, accountID: accountID)
        } catch SchedulingError.scheduleNotFound {
            throw SchedulingError.sharedScheduleNotFound
        }
    }

    /// The schedule and owner behind a live token, after the network's read limit. A token of
    /// the wrong shape is looked up like any other (its hash finds nothing), so every miss
    /// costs the same.
    func target(token: String, clientAddress: String?) async throws -> (scheduleID: Int64, accountID: Int64) {
        let now = clock.now()
        if let reads, let wait = reads.take(clientAddress.map(ClientNetwork.key) ?? "unknown", now: now) {
            throw SchedulingError.sharedReadsLimited(retryAfterSeconds: wait)
        }
        let hash = CalendarService.hash(token: String(token.prefix(64)))
        let found = try await transactions.readPreferringInline { [links] db in try links.target(tokenHash: hash, at: now, in: db) }
        guard let found else { throw SchedulingError.sharedScheduleNotFound }
        return found
    }
}

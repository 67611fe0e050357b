public import Catalog
public import Contracts
import Crypto
public import Foundation
public import GatewayCore
public import Storage

/// Calendar export: a saved schedule or the student's registration as an RFC 5545 document,
/// and secret subscription feeds: one that always shows the current registration, and one per
/// saved schedule (``createScheduleFeed(scheduleID:accountID:)``) showing that schedule.
///
/// Each calendar keeps a revision (``CalendarStoring/revision(of:contentHash:at:in:)``): while
/// its contents stay the same, the document is byte-identical (same DTSTAMP, SEQUENCE and
/// ETag), so calendar apps polling the feed get 304s; when they change, SEQUENCE rises.
public final class CalendarService: Sendable {
    let transactions: any TransactionRunner
    let store: any CalendarStoring
    let schedules: any SavedScheduleStoring
    let scheduleFeeds: any ScheduleFeedStoring
    let terms: TermService
    let catalog: CatalogService
    let registered: any RegisteredClasses
    let clock: any GatewayClock
    let uidDomain: String

    public init(
        transactions: any TransactionRunner, store: any CalendarStoring,
        schedules: any SavedScheduleStoring, scheduleFeeds: any ScheduleFeedStoring,
        terms: TermService, catalog: CatalogService,
        registered: any RegisteredClasses, clock: any GatewayClock, uidDomain: String = "campus-gateway"
    ) {
        self.transactions = transactions
        self.store = store
        self.schedules = schedules
        self.scheduleFeeds = scheduleFeeds
        self.terms = terms
        self.catalog = catalog
        self.registered = registered
        self.clock = clock
        self.uidDomain = uidDomain
    }

    /// A rendered calendar with what HTTP caching needs.
    public struct ExportedCalendar: Sendable {
        public var body: String
        public var filename: String
        /// A strong validator of ``body``.
        public var etag: String
        public var lastModified: Date
    }

    /// A feed's secret, shown once when created.
    public struct NewFeed: Sendable {
        public var token: String
        public var createdAt: Date
    }

    /// The calendar of one of the student's saved schedules.
    public func scheduleCalendar(id: Int64, accountID: Int64) async throws -> ExportedCalendar {
        let saved = try await transactions.read { [schedules] db in try schedules.schedule(id: id, of: accountID, in: db) }
        guard let saved else { throw SchedulingError.scheduleNotFound }
        guard let term = try await terms.term(id: saved.term) else { throw SchedulingError.termCalendarMissing(saved.term) }
        let snapshot = try await catalog.snapshot()
        let sections = saved.classIDs.compactMap { snapshot.listing(id: $0).map { Self.section($0.info) } }
        return try await export(
            calendar: "schedule:\(saved.id)", name: "\(saved.name) (\(term.name))", filename: CalendarDocument.filename(displayName: saved.name, termID: term.id),
            groups: [CalendarDocument.TermSections(term: term, sections: sections)]
        )
    }

    /// The calendar of every class the student is enrolled in, in every term that has dates.
    /// Classes of a term without dates (no admin defined it) are left out.
    public func registrationCalendar(accountID: Int64) async throws -> ExportedCalendar {
        let ids = try await registered.enrolledClassIDs(accountID: accountID)
        let snapshot = try await catalog.snapshot()
        var byTerm: [String: [CalendarSection]] = [:]
        for id in ids {
            guard let listing = snapshot.listing(id: id) else { continue }
            byTerm[listing.info.term, default: []].append(Self.section(listing.info))
        }
        var groups: [CalendarDocument.TermSections] = []
        for termID in byTerm.keys.sorted() {
            guard let term = try await terms.term(id: termID), let sections = byTerm[termID] else { continue }
            groups.append(CalendarDocument.TermSections(term: term, sections: sections))
        }
        groups.sort { ($0.term.firstDay, $0.term.id) < ($1.term.firstDay, $1.term.id) }
        return try await export(
            calendar: "registration:\(accountID)", name: "My classes", filename: "my-classes.ics", groups: groups
        )
    }

    /// Creates the student's feed, revoking any earlier one; the token is returned only now.
    public func createFeed(accountID: Int64) async throws -> NewFeed {
        let token = Self.newToken()
        let now = clock.now()
        let hash = Self.hash(token: token)
        try await transactions.write { [store] db in try store.setFeed(accountID: accountID, tokenHash: hash, at: now, in: db) }
        return NewFeed(token: token, createdAt: now)
    }

    /// When the student's feed was created; nil without one.
    public func feedCreatedAt(accountID: Int64) async throws -> Date? {
        try await transactions.read { [store] db in try store.feedCreatedAt(accountID: accountID, in: db) }
    }

    /// Revokes the student's feed: its address answers 404 from now on.
    public func revokeFeed(accountID: Int64) async throws {
        let deleted = try await transactions.write { [store] db in try store.deleteFeed(accountID: accountID, in: db) }
        guard deleted else { throw SchedulingError.feedNotFound }
    }

    /// The calendar behind a feed token: the owner's registration, or a saved schedule.
    public func feedCalendar(token: String) async throws -> ExportedCalendar {
        guard token.utf8.count == 43, token.utf8.allSatisfy({ $0 < 0x80 }) else { throw SchedulingError.feedNotFound }
        let hash = Self.hash(token: token)
        let (owner, schedule) = try await transactions.read { [store, scheduleFeeds] db in
            (try store.feedOwner(tokenHash: hash, in: db), try scheduleFeeds.feedTarget(tokenHash: hash, in: db))
        }
        if let owner { return try await registrationCalendar(accountID: owner) }
        guard let schedule else { throw SchedulingError.feedNotFound }
        do {
            return try await scheduleCalendar(id: schedule.scheduleID, accountID: schedule.accountID)
        } catch SchedulingError.scheduleNotFound {
            throw SchedulingError.feedNotFound
        }
    }

    /// A feed secret: 32 random bytes (256 bits), base64url without padding (43 characters).
    static func newToken() -> String {
        var bytes = [UInt8](repeating: 0, count: 32)
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = generator.next() }
        return Base64URL.encode(bytes)
    }

    static func hash(token: String) -> Data { Data(SHA256.hash(data: Data(token.utf8))) }

    static func section(_ info: CatalogClass) -> CalendarSection {
        CalendarSection(
            classID: info.id, courseLabel: info.courseLabel, title: info.title, section: info.section,
            instructors: info.instructors, units: info.units, meetings: info.meetings
        )
    }

    /// Renders the groups at the calendar's current revision (bumped when the contents changed).
    private func export(calendar: String, name: String, filename: String, groups: [CalendarDocument.TermSections]) async throws -> ExportedCalendar {
        let contentHash = Self.contentHash(name: name, groups: groups)
        let now = clock.now()
        let revision = try await transactions.write { [store] db in
            try store.revision(of: calendar, contentHash: contentHash, at: now, in: db)
        }
        let body = CalendarDocument.render(
            terms: groups, name: name, uidDomain: uidDomain, stamp: revision.changedAt, sequence: revision.sequence
        )
        let etag = "\"" + Self.hex(SHA256.hash(data: Data(body.utf8))).prefix(32) + "\""
        return ExportedCalendar(body: body, filename: filename, etag: etag, lastModified: revision.changedAt)
    }

    /// A digest of everything the document shows, so a change to a term, a class's meetings or
    /// the list of classes is a new revision.
    static func contentHash(name: String, groups: [CalendarDocument.TermSections]) -> String {
        var hasher = SHA256()
        hasher.update(data: Data(name.utf8))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for group in groups {
            hasher.update(data: (try? encoder.encode(group.term)) ?? Data())
            for section in group.sections {
                let fields = [String(section.classID), section.courseLabel, section.title, section.section, section.units]
                    + section.instructors
                hasher.update(data: Data(fields.joined(separator: "\u{1F}").utf8))
                hasher.update(data: (try? encoder.encode(section.meetings)) ?? Data())
            }
        }
        return hex(hasher.finalize())
    }

    static func hex(_ digest: some Sequence<UInt8>) -> String {
        digest.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}

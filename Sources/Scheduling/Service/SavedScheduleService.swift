public import Catalog
public import Foundation
public import GatewayCore
public import Storage

/// Students' saved schedules: save a build result or any list of classes, list, rename,
/// change and delete them. Every use case takes the caller's account: another student's
/// schedule is simply not found.
public final class SavedScheduleService: Sendable {
    let transactions: any TransactionRunner
    let store: any SavedScheduleStoring
    let calendars: any CalendarStoring
    let feeds: any ScheduleFeedStoring
    let catalog: CatalogService
    let clock: any GatewayClock

    public init(
        transactions: any TransactionRunner, store: any SavedScheduleStoring,
        calendars: any CalendarStoring, feeds: any ScheduleFeedStoring,
        catalog: CatalogService, clock: any GatewayClock
    ) {
        self.transactions = transactions
        self.store = store
        self.calendars = calendars
        self.feeds = feeds
        self.catalog = catalog
        self.clock = clock
    }

    public func save(accountID: Int64, name: String, term: String, classIDs: [Int64]) async throws -> SavedSchedule {
        let name = try Self.checkedName(name)
        let ids = try await checkedClasses(classIDs, term: term)
        let now = clock.now()
        return try await transactions.write { [store] db in
            guard try store.count(of: accountID, in: db) < SavedSchedule.maximumPerStudent else {
                throw SchedulingError.scheduleLimit(SavedSchedule.maximumPerStudent)
            }
            return try store.insert(accountID: accountID, name: name, term: term, classIDs: ids, at: now, in: db)
        }
    }

    public func schedules(accountID: Int64) async throws -> [SavedSchedule] {
        try await transactions.read { [store] db in try store.schedules(of: accountID, in: db) }
    }

    public func schedule(id: Int64, accountID: Int64) async throws -> SavedSchedule {
        let found = try await transactions.read { [store] db in try store.schedule(id: id, of: accountID, in: db) }
        guard let found else { throw SchedulingError.scheduleNotFound }
        return found
    }

    /// Renames the schedule, replaces its classes and/or sets who sees it, in one transaction.
    public func update(
        id: Int64, accountID: Int64, name: String?, classIDs: [Int64]?, visibility: ScheduleVisibility? = nil
    ) async throws -> SavedSchedule {
        let current = try await schedule(id: id, accountID: accountID)
        let name = try name.map(Self.checkedName)
        var ids: [Int64]?
        if let classIDs { ids = try await checkedClasses(classIDs, term: current.term) }
        let now = clock.now()
        let newIDs = ids
        let updated = try await transactions.write { [store] db -> SavedSchedule? in
            var updated: SavedSchedule? = current
            if name != nil || newIDs != nil { updated = try store.update(id: id, of: accountID, name: name, classIDs: newIDs, at: now, in: db) }
            if let visibility, updated != nil { updated = try store.setVisibility(visibility, id: id, of: accountID, at: now, in: db) }
            return updated
        }
        guard let updated else { throw SchedulingError.scheduleNotFound }
        return updated
    }

    /// Deletes the schedule with its calendar's revision and its feed (whose address answers
    /// 404 from now on).
    public func delete(id: Int64, accountID: Int64) async throws {
        let deleted = try await transactions.write { [store, calendars, feeds] db in
            _ = try feeds.deleteFeed(scheduleID: id, accountID: accountID, in: db)
            let deleted = try store.delete(id: id, of: accountID, in: db)
            if deleted { try calendars.forget(calendar: "schedule:\(id)", in: db) }
            return deleted
        }
        guard deleted else { throw SchedulingError.scheduleNotFound }
    }

    static func checkedName(_ raw: String) throws -> String {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= SavedSchedule.maximumNameLength, !name.contains(where: { $0.isNewline }) else {
            throw SchedulingError.invalid(field: "name", message: "A name is 1 to \(SavedSchedule.maximumNameLength) characters on one line.")
        }
        return name
    }

    /// The classes, each existing in `term`, without repeats, in the order given.
    func checkedClasses(_ ids: [Int64], term: String) async throws -> [Int64] {
        guard !ids.isEmpty, ids.count <= SavedSchedule.maximumClasses else {
            throw SchedulingError.invalid(field: "classIds", message: "A schedule holds 1 to \(SavedSchedule.maximumClasses) classes.")
        }
        let snapshot = try await catalog.snapshot()
        var seen: Set<Int64> = []
        for (index, id) in ids.enumerated() {
            guard let listing = snapshot.listing(id: id) else {
                throw SchedulingError.invalid(field: "classIds[\(index)]", message: "No class has id \(id).")
            }
            guard listing.info.term == term else {
                throw SchedulingError.invalid(field: "classIds[\(index)]", message: "Class \(id) is in term \(listing.info.term), not \(term).")
            }
            guard seen.insert(id).inserted else {
                throw SchedulingError.invalid(field: "classIds[\(index)]", message: "Class \(id) is listed twice.")
            }
        }
        return ids
    }
}

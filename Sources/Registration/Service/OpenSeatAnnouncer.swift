import Catalog
import Contracts
import Foundation
import Jobs

/// Turns seat changes into open and close events, in the transaction that made them.
///
/// An **open event** is a class going from no seat open to newcomers to at least one: a drop,
/// a declined or expired offer, an admin adding seats, a class coming back. It is judged after
/// the waitlist policy has taken what it takes (offers made, students promoted), so a seat that
/// goes straight to the line announces nothing. Each open event queues one `push.class-opened`
/// (Push tells the class's and the course's watchers); each close queues `push.class-closed`.
///
/// The state before is the one recorded in ``SeatStateStoring``; a class never recorded takes
/// the caller's view of it (the in-memory catalog from before the change), and a class nobody
/// knew (created just now) is recorded without an event.
struct OpenSeatAnnouncer: Sendable {
    let stores: RegistrationStores

    /// Classes read per statement: an import may touch every class of a catalog, more than one
    /// statement may bind.
    static let chunk = 500

    /// Records each class's state from its open seats now (0 for a class being deleted) and
    /// queues an event for each class whose state changed.
    func announce(openSeats: [Int64: Int], before: (Int64) -> Bool?, now: Date, in db: any StoreTransaction) throws {
        guard !openSeats.isEmpty else { return }
        let recorded = try stores.seatStates.openStates(of: openSeats.keys, in: db)
        var changed: [(id: Int64, seats: Int)] = []
        var states: [(classID: Int64, open: Bool)] = []
        for (id, seats) in openSeats.sorted(by: { $0.key < $1.key }) {
            let open = seats > 0
            if recorded[id] != open { states.append((id, open)) }
            if let previous = recorded[id] ?? before(id), previous != open { changed.append((id, seats)) }
        }
        try stores.seatStates.record(states, at: now, in: db)
        guard !changed.isEmpty else { return }
        let labels = try stores.catalog.labels(of: changed.map(\.id), in: db)
        for (id, seats) in changed {
            // A class without a label is not in the catalog: nothing to announce of it.
            guard let label = labels[id] else { continue }
            if seats > 0 {
                try stores.jobs.enqueue(NewJob(PushJobs.classOpened, .init(classId: id, openSeats: seats, label: label)), in: db, now: now)
            } else {
                try stores.jobs.enqueue(NewJob(PushJobs.classClosed, .init(classId: id, label: label)), in: db, now: now)
            }
        }
    }

    /// The same, from seat counts read in the transaction (a class missing from them is gone).
    func announce(counts: [Int64: SeatCount], of ids: Set<Int64>, before: (Int64) -> Bool?, now: Date, in db: any StoreTransaction) throws {
        var seats: [Int64: Int] = [:]
        for id in ids { seats[id] = counts[id]?.openSeats ?? 0 }
        try announce(openSeats: seats, before: before, now: now, in: db)
    }

    /// The same for any number of classes (an import), read and recorded a chunk at a time.
    func announce(classIDs: Set<Int64>, before: (Int64) -> Bool?, now: Date, in db: any StoreTransaction) throws {
        let sorted = classIDs.sorted()
        for start in stride(from: 0, to: sorted.count, by: Self.chunk) {
            let ids = Set(sorted[start..<min(start + Self.chunk, sorted.count)])
            try announce(counts: try stores.catalog.seatCounts(of: ids, in: db), of: ids, before: before, now: now, in: db)
        }
    }
}

extension CatalogCache.Snapshot {
    /// Whether the class was open to newcomers in this snapshot; nil when it holds no such class.
    func wasOpen(_ id: Int64) -> Bool? {
        listing(id: id).map { $0.seats.openSeats > 0 }
    }
}

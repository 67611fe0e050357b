import Catalog
import Contracts
import Foundation
import GatewayCore
import Jobs
import Storage

/// Queues the open and close events that one-trip registrations wrote to the outbox
/// (`registration_seat_events`), once they committed: each event is taken (deleted) and its
/// `push.class-opened` or `push.class-closed` job enqueued in one transaction, so it is queued
/// exactly once, whichever instance takes it. The registration that wrote an event dispatches
/// before it answers; the minutely offer sweep takes what a crash left behind.
struct SeatEventDispatcher: Sendable {
    let transactions: any TransactionRunner
    let stores: RegistrationStores
    let clock: any GatewayClock

    /// Events taken per transaction.
    static let batch = 100

    /// Queues every event in the outbox; how many.
    @discardableResult
    func dispatch() async throws -> Int {
        guard let oneTrip = stores.oneTrip else { return 0 }
        var total = 0
        while true {
            let stores = self.stores, now = clock.now()
            let taken = try await transactions.writeLockingRows { db -> Int in
                let events = try oneTrip.takeSeatEvents(limit: Self.batch, in: db)
                guard !events.isEmpty else { return 0 }
                let labels = try stores.catalog.labels(of: Set(events.map(\.classID)), in: db)
                for event in events {
                    // A class without a label is not in the catalog (deleted since): nothing to tell.
                    guard let label = labels[event.classID] else { continue }
                    if event.open {
                        try stores.jobs.enqueue(NewJob(PushJobs.classOpened, .init(classId: event.classID, openSeats: event.openSeats, label: label)), in: db, now: now)
                    } else {
                        try stores.jobs.enqueue(NewJob(PushJobs.classClosed, .init(classId: event.classID, label: label)), in: db, now: now)
                    }
                }
                return events.count
            }
            total += taken
            if taken < Self.batch { return total }
        }
    }
}

import Catalog
import Contracts
import Foundation

/// Registration's rule for what a unit of work did to seats: in its transaction, the seat
/// counts of every class it touched are read and the classes it opened or closed to newcomers
/// announced (``OpenSeatAnnouncer``: an outbox row per event, in that transaction); after the
/// commit, the counts go to the in-memory catalog once.
struct SeatEvents: UnitsFinishing {
    let stores: RegistrationStores
    let catalog: CatalogService

    /// The catalog as this instance last knew it: the state before for a class whose state was
    /// never recorded.
    func beforeUnits() -> CatalogCache.Snapshot { catalog.cachedSnapshot() }

    func finish(touched: Set<Int64>, context before: CatalogCache.Snapshot, now: Date, in db: any StoreTransaction) throws -> [Int64: SeatCount] {
        let counts = try stores.catalog.seatCounts(of: touched, in: db)
        try OpenSeatAnnouncer(stores: stores).announce(counts: counts, of: touched, before: before.wasOpen, now: now, in: db)
        return counts
    }

    func committed(_ counts: [Int64: SeatCount]) { catalog.apply(counts) }
}

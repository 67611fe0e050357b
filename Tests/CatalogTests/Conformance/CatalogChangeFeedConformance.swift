import Catalog
import Foundation
import PostgresStores
import SQLiteStores
import Synchronization
import Storage
import TestSupport
import Testing
import SQLiteStorage

/// The promises a ``CatalogChangeFeed`` makes, on every backend that has one (PostgreSQL; a
/// SQLite file is served by one process): `.resync` first, then each committed change in
/// commit order (a class's seat numbers, carried by the notice, and a new catalog version),
/// one notice per distinct change, and nothing for a transaction rolled back or a move that
/// changes no number.
@Suite("Catalog change feed conformance")
struct CatalogChangeFeedConformance {
    final class Heard: Sendable {
        private let changes = Mutex<[CatalogChange]>([])
        func append(_ change: CatalogChange) { changes.withLock { $0.append(change) } }
        var all: [CatalogChange] { changes.withLock { $0 } }
    }

    @Test func sqliteHasNoFeed() {
        #expect(CatalogStores.sqlite().changes == nil, "one process serves a SQLite file; its own changes reach its cache directly")
    }

    @Test(arguments: CatalogBackend.withFeed)
    func committedChangesAreAnnouncedInCommitOrder(_ backend: StoreBackend<CatalogStores>) async throws {
        try await backend.with { transactions, stores in
            let catalog = stores.catalog
            let feed = try #require(stores.changes)
            let document = CatalogStoreConformance.document()
            _ = try await transactions.write { tx throws in try catalog.apply(document, options: ImportOptions(), in: tx) }

            let heard = Heard()
            let follower = Task { await feed.follow { change in heard.append(change) } }
            try #require(await eventually { heard.all == [.resync] }, "listening starts with a resync")

            try await transactions.write { tx throws in try catalog.adjustSeats(classID: 501, enrolled: 1, in: tx) }
            struct Abandoned: Error {}
            await #expect(throws: Abandoned.self) {
                try await transactions.write { tx throws in
                    try catalog.adjustSeats(classID: 502, waitlist: 1, in: tx)
                    try catalog.bumpVersion(in: tx)
                    throw Abandoned()
                }
            }
            try await transactions.write { tx throws in
                try catalog.adjustSeats(classID: 503, in: tx)  // the revision only: no number changes
                try catalog.adjustSeats(classID: 504, held: 1, in: tx)
                try catalog.adjustSeats(classID: 504, held: -1, waitlist: 2, in: tx)
            }
            try await transactions.write { tx throws in try catalog.bumpVersion(in: tx) }
            var reseated = document
            reseated.classes[4].seats = 14
            let edited = reseated
            _ = try await transactions.write { tx throws in try catalog.apply(edited, options: ImportOptions(), in: tx) }
            try await transactions.write { tx throws in try catalog.setSeats(classID: 506, seats: 6, in: tx) }

            // Each notice carries the counts it announces: 504's two changes in one
            // transaction are two notices, in the order they were made.
            let expected = ["resync", "seats 501", "seats 504", "seats 504", "catalog", "seats 505", "catalog", "seats 506"]
            let complete = await eventually { heard.all.count >= expected.count }
            follower.cancel()
            await follower.value
            #expect(complete)
            #expect(heard.all.map(Self.summary) == expected)
            // What the last notice of each class said is what the database holds.
            var announced: [Int64: SeatCount] = [:]
            for case .counts(let counts) in heard.all { announced.merge(counts) { $1 } }
            let stored = try await transactions.read { tx in try catalog.seatCounts(of: [501, 504, 505, 506], in: tx) }
            #expect(announced == stored)
            #expect(announced[504]?.held == 0 && announced[504]?.waitlist == 2)
        }
    }

    static func summary(_ change: CatalogChange) -> String {
        switch change {
        case .resync: "resync"
        case .catalog: "catalog"
        case .seats(let ids): "seats " + ids.map(String.init).joined(separator: ",")
        case .counts(let counts): "seats " + counts.keys.sorted().map(String.init).joined(separator: ",")
        }
    }
}

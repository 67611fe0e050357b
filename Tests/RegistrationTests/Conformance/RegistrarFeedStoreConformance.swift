import Catalog
import Contracts
import Foundation
import Registration
import Storage
import Testing

/// The promises the registrar feed's stores make on every backend, through their protocols:
/// the catalog finds a term's classes by section number and mirrors the registrar's counts and
/// status; the feed's store keeps each class's last `asOf` to the millisecond, its history
/// newest first, each webhook id once, each term's last poll, and prunes by age.
@Suite("Registrar feed store conformance")
struct RegistrarFeedStoreConformance {
    static let start = RegistrationStoreConformance.start
    static let classID = RegistrationStoreConformance.classID

    @Test(arguments: RegistrationBackend.all)
    func theMirrorHistoryDeliveriesAndPollsAreKept(_ backend: RegistrationBackend) async throws {
        try await RegistrationStoreConformance.withBackend(backend, seats: 10, students: 0) { opened, _ in
            let catalog = opened.stores.catalog, feed = opened.stores.registrarFeed
            let update = RegistrarSeatUpdate(
                scheduleNumber: "90001", seats: 12, enrolled: 12, waitlisted: 4, status: .closed, asOf: Self.start.addingTimeInterval(0.123)
            )
            try await opened.transactions.write { tx throws in
                #expect(try catalog.classIDs(term: "t1", in: tx) == ["90001": Self.classID])
                #expect(try catalog.classIDs(term: "t2", in: tx).isEmpty)
                try catalog.mirrorSeats(classID: Self.classID, seats: 12, enrolled: 12, waitlist: 4, status: .closed, in: tx)
                try feed.recordApplied([(Self.classID, update)], via: "webhook", at: Self.start.addingTimeInterval(1), in: tx)
            }
            let seats = try await RegistrationStoreConformance.seats(opened)
            #expect(seats.seats == 12 && seats.enrolled == 12 && seats.waitlist == 4 && seats.status == .closed && seats.openSeats == 0)
            try await opened.transactions.read { tx throws in
                #expect(try catalog.classSeats(of: [Self.classID], in: tx)[Self.classID]?.status == .closed)
                #expect(try feed.lastApplied(of: [Self.classID, 999], in: tx) == [Self.classID: update.asOf.feedMilliseconds])
            }

            let later = RegistrarSeatUpdate(scheduleNumber: "90001", seats: 12, enrolled: 11, status: .open, asOf: Self.start.addingTimeInterval(60))
            try await opened.transactions.write { tx throws in
                try catalog.mirrorSeats(classID: Self.classID, seats: 12, enrolled: 11, waitlist: 4, status: .open, in: tx)
                try feed.recordApplied([(Self.classID, later)], via: "poll", at: Self.start.addingTimeInterval(61), in: tx)
                #expect(try feed.claimDelivery(id: "msg_1", at: Self.start, in: tx))
                #expect(try !feed.claimDelivery(id: "msg_1", at: Self.start.addingTimeInterval(5), in: tx), "an id is claimed once")
                #expect(try feed.claimDelivery(id: "msg_2", at: Self.start.addingTimeInterval(100_000), in: tx))
                try feed.recordPoll(RegistrarPollRecord(term: "t1", polledAt: Self.start, outcome: "failed: HTTP 503"), in: tx)
                try feed.recordPoll(RegistrarPollRecord(term: "t1", polledAt: Self.start.addingTimeInterval(300), outcome: "ok"), in: tx)
            }
            #expect(try await RegistrationStoreConformance.seats(opened).openSeats == 1)
            try await opened.transactions.read { tx throws in
                let history = try feed.history(classID: Self.classID, limit: 10, in: tx)
                #expect(history.map(\.enrolled) == [11, 12], "newest first")
                #expect(history[1] == SeatHistoryEntry(
                    receivedAt: Self.start.addingTimeInterval(1), asOf: Date(feedMilliseconds: update.asOf.feedMilliseconds), seats: 12, enrolled: 12,
                    waitlisted: 4, status: .closed, via: "webhook"
                ))
                #expect(history[0].waitlisted == nil && history[0].via == "poll")
                #expect(try feed.history(classID: Self.classID, limit: 1, in: tx).count == 1)
                #expect(try feed.lastPoll(term: "t1", in: tx) == RegistrarPollRecord(term: "t1", polledAt: Self.start.addingTimeInterval(300), outcome: "ok"))
                #expect(try feed.lastPoll(term: "t2", in: tx) == nil)
            }
            // Pruning by age: the first entry and msg_1 go; msg_2 and the later entry stay.
            let removed = try await opened.transactions.write { tx throws in try feed.prune(before: Self.start.addingTimeInterval(30), in: tx) }
            #expect(removed == 2)
            try await opened.transactions.write { tx throws in
                #expect(try feed.history(classID: Self.classID, limit: 10, in: tx).map(\.enrolled) == [11])
                #expect(try feed.claimDelivery(id: "msg_1", at: Self.start.addingTimeInterval(40), in: tx), "a pruned id is new again")
                #expect(try !feed.claimDelivery(id: "msg_2", at: Self.start.addingTimeInterval(40), in: tx))
            }
        }
    }
}

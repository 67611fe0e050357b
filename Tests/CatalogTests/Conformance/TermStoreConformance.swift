import Catalog
import Foundation
import Storage
import TestSupport
import Testing

/// The promises the term store makes (``TermStoring``), through the protocol only, on every
/// backend: a term reads back exactly as put (holidays and transfer days included), terms are
/// listed by first day then id, creating a taken id is refused without spoiling the
/// transaction, an upsert says whether it created, and a delete whether there was a term.
@Suite("Term store conformance")
struct TermStoreConformance {
    static func date(_ text: String) throws -> CivilDate { try #require(CivilDate(parsing: text)) }

    static func fall() throws -> Term {
        Term(
            id: "2025-fall", name: "Fall 2025", firstDay: try date("2025-08-25"), lastDay: try date("2025-12-12"), timeZone: "America/Los_Angeles",
            holidays: [
                .init(date: try date("2025-11-11"), name: "Veterans Day"),
                .init(from: try date("2025-11-26"), to: try date("2025-11-28"), name: "Thanksgiving"),
            ],
            transferDays: [.init(date: try date("2025-12-10"), follows: .friday)]
        )
    }

    @Test(arguments: CatalogBackend.all)
    func termsReadBackAsPutListedByFirstDayThenId(_ backend: StoreBackend<CatalogStores>) async throws {
        try await backend.with { transactions, stores in
            let terms = stores.terms
            let fall = try Self.fall()
            let spring = Term(id: "2026-spring", name: "Spring 2026", firstDay: try Self.date("2026-01-20"), lastDay: try Self.date("2026-05-08"), timeZone: "UTC")
            var twin = fall
            twin.id = "2025-fall-a"
            twin.holidays = []
            let made = [spring, twin, fall]
            try await transactions.write { tx throws in
                for term in made { try terms.create(term, in: tx) }
            }
            try await transactions.read { tx throws in
                #expect(try terms.term(id: "2025-fall", in: tx) == fall, "every field reads back, holidays and transfer days included")
                #expect(try terms.term(id: "2025-fall-a", in: tx)?.holidays == [])
                #expect(try terms.term(id: "2024-fall", in: tx) == nil)
                #expect(try terms.terms(in: tx).map(\.id) == ["2025-fall", "2025-fall-a", "2026-spring"])
            }
        }
    }

    @Test(arguments: CatalogBackend.all)
    func creatingATakenIdIsRefusedAndTheTransactionGoesOn(_ backend: StoreBackend<CatalogStores>) async throws {
        try await backend.with { transactions, stores in
            let terms = stores.terms
            let fall = try Self.fall()
            var other = fall
            other.name = "Autumn"
            let second = other
            let after = Term(id: "2026-spring", name: "Spring 2026", firstDay: try Self.date("2026-01-20"), lastDay: try Self.date("2026-05-08"), timeZone: "UTC")
            try await transactions.write { tx throws in
                try terms.create(fall, in: tx)
                #expect(throws: CatalogError.termExists("2025-fall")) { try terms.create(second, in: tx) }
                try terms.create(after, in: tx)
            }
            try await transactions.read { tx throws in
                #expect(try terms.term(id: "2025-fall", in: tx)?.name == "Fall 2025", "the refused create changed nothing")
                #expect(try terms.terms(in: tx).map(\.id) == ["2025-fall", "2026-spring"])
            }
        }
    }

    @Test(arguments: CatalogBackend.all)
    func anUpsertSaysWhetherItCreatedAndADeleteWhetherThereWasOne(_ backend: StoreBackend<CatalogStores>) async throws {
        try await backend.with { transactions, stores in
            let terms = stores.terms
            let fall = try Self.fall()
            var renamed = fall
            renamed.name = "Fall semester 2025"
            renamed.lastDay = try Self.date("2025-12-19")
            renamed.transferDays = []
            let replacement = renamed
            let created = try await transactions.write { tx throws in
                (try terms.upsert(fall, in: tx), try terms.upsert(replacement, in: tx))
            }
            #expect(created == (true, false))
            #expect(try await transactions.read { tx throws in try terms.term(id: "2025-fall", in: tx) } == replacement)

            let deleted = try await transactions.write { tx throws in (try terms.delete(id: "2025-fall", in: tx), try terms.delete(id: "2025-fall", in: tx)) }
            #expect(deleted == (true, false))
            #expect(try await transactions.read { tx throws in try terms.terms(in: tx) } == [])
            struct Abandoned: Error {}
            await #expect(throws: Abandoned.self) {
                try await transactions.write { tx throws in
                    try terms.upsert(fall, in: tx)
                    throw Abandoned()
                }
            }
            #expect(try await transactions.read { tx throws in try terms.term(id: "2025-fall", in: tx) } == nil, "rolled back with its transaction")
        }
    }
}

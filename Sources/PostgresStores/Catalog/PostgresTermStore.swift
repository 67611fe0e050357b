import Catalog
import Contracts
import Foundation
import PostgresNIO
import Storage
import PostgresStorage

/// ``TermStoring`` on PostgreSQL: `catalog_terms`, kept as on SQLite (``StoredTermText``).
struct PostgresTermStore: TermStoring {
    init() {}

    static let columns = "id, name, first_day, last_day, time_zone, holidays, transfer_days, seats_from, registrar_feed_url, registrar_poll_seconds, max_units, refuse_duplicate_courses"

    static func term(_ row: PostgresRow) throws -> Term {
        let (id, name, firstDay, lastDay, timeZone, holidays, transferDays, seatsFrom, feedURL, pollSeconds, maxUnits, duplicates) = try row.decode(
            (String, String, String, String, String, String, String, String, String?, Int?, Double?, Bool).self
        )
        return try StoredTermText.term(
            id: id, name: name, firstDay: firstDay, lastDay: lastDay, timeZone: timeZone, holidays: holidays, transferDays: transferDays,
            seatsFrom: seatsFrom, registrarFeedURL: feedURL, registrarPollSeconds: pollSeconds, maxUnits: maxUnits,
            refuseDuplicateCourses: duplicates
        )
    }

    func terms(in transaction: any StoreTransaction) throws -> [Term] {
        try transaction.postgres().query("SELECT \(unescaped: Self.columns) FROM catalog_terms ORDER BY first_day, id").map(Self.term)
    }

    func term(id: String, in transaction: any StoreTransaction) throws -> Term? {
        try transaction.postgres().query("SELECT \(unescaped: Self.columns) FROM catalog_terms WHERE id = \(id)").first.map(Self.term)
    }

    @discardableResult
    func upsert(_ term: Term, in transaction: any StoreTransaction) throws -> Bool {
        let (holidays, transferDays) = try StoredTermText.lists(of: term)
        // xmax = 0 marks a row this statement inserted rather than updated.
        return try transaction.postgres().query("""
            INSERT INTO catalog_terms (\(unescaped: Self.columns))
            VALUES (\(term.id), \(term.name), \(term.firstDay.description), \(term.lastDay.description), \(term.timeZone), \(holidays), \(transferDays),
                    \(term.seatsFrom.rawValue), \(term.registrarFeedURL?.absoluteString), \(term.registrarPollSeconds), \(term.maxUnits), \(term.refuseDuplicateCourses))
            ON CONFLICT (id) DO UPDATE SET name = excluded.name, first_day = excluded.first_day, last_day = excluded.last_day,
                time_zone = excluded.time_zone, holidays = excluded.holidays, transfer_days = excluded.transfer_days,
                seats_from = excluded.seats_from, registrar_feed_url = excluded.registrar_feed_url,
                registrar_poll_seconds = excluded.registrar_poll_seconds, max_units = excluded.max_units,
                refuse_duplicate_courses = excluded.refuse_duplicate_courses
            RETURNING (xmax = 0)
            """).first?.decode(Bool.self) ?? false
    }

    func create(_ term: Term, in transaction: any StoreTransaction) throws {
        let (holidays, transferDays) = try StoredTermText.lists(of: term)
        let inserted = try transaction.postgres().execute("""
            INSERT INTO catalog_terms (\(unescaped: Self.columns))
            VALUES (\(term.id), \(term.name), \(term.firstDay.description), \(term.lastDay.description), \(term.timeZone), \(holidays), \(transferDays),
                    \(term.seatsFrom.rawValue), \(term.registrarFeedURL?.absoluteString), \(term.registrarPollSeconds), \(term.maxUnits), \(term.refuseDuplicateCourses))
            ON CONFLICT (id) DO NOTHING
            """)
        guard inserted == 1 else { throw CatalogError.termExists(term.id) }
    }

    @discardableResult
    func delete(id: String, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().execute("DELETE FROM catalog_terms WHERE id = \(id)") > 0
    }
}

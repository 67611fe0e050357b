import Catalog
import Contracts
import Foundation
import GRDB
import Storage
import SQLiteStorage

/// ``TermStoring`` on SQLite: `catalog_terms`, one row per term. Dates are `YYYY-MM-DD` text;
/// holidays and transfer days are stored as the API writes them (JSON arrays), so a row reads
/// back as the term that was put.
struct SQLiteTermStore: TermStoring {
    init() {}

    func terms(in transaction: any StoreTransaction) throws -> [Term] {
        let db = try transaction.sqlite()
        return try Row.fetchAll(db.cachedStatement(sql: """
            SELECT \(Self.columns) FROM catalog_terms ORDER BY first_day, id
            """)).map(Self.term(from:))
    }

    func term(id: String, in transaction: any StoreTransaction) throws -> Term? {
        let db = try transaction.sqlite()
        return try Row.fetchOne(
            db.cachedStatement(sql: """
                SELECT \(Self.columns) FROM catalog_terms WHERE id = ?
                """),
            arguments: [id]
        ).map(Self.term(from:))
    }

    @discardableResult
    func upsert(_ term: Term, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        let existed = try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM catalog_terms WHERE id = ?)"), arguments: [term.id]
        ) ?? false
        try db.cachedStatement(sql: """
            INSERT INTO catalog_terms (\(Self.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (id) DO UPDATE SET name = excluded.name, first_day = excluded.first_day, last_day = excluded.last_day,
                time_zone = excluded.time_zone, holidays = excluded.holidays, transfer_days = excluded.transfer_days,
                seats_from = excluded.seats_from, registrar_feed_url = excluded.registrar_feed_url,
                registrar_poll_seconds = excluded.registrar_poll_seconds, max_units = excluded.max_units,
                refuse_duplicate_courses = excluded.refuse_duplicate_courses
            """).execute(arguments: try Self.arguments(term))
        return !existed
    }

    func create(_ term: Term, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.cachedStatement(sql: """
            INSERT INTO catalog_terms (\(Self.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING
            """).execute(arguments: try Self.arguments(term))
        guard db.changesCount == 1 else { throw CatalogError.termExists(term.id) }
    }

    @discardableResult
    func delete(id: String, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.cachedStatement(sql: "DELETE FROM catalog_terms WHERE id = ?").execute(arguments: [id])
        return db.changesCount > 0
    }

    static let columns = "id, name, first_day, last_day, time_zone, holidays, transfer_days, seats_from, registrar_feed_url, registrar_poll_seconds, max_units, refuse_duplicate_courses"

    static func arguments(_ term: Term) throws -> StatementArguments {
        let (holidays, transferDays) = try StoredTermText.lists(of: term)
        return [
            term.id, term.name, term.firstDay.description, term.lastDay.description, term.timeZone, holidays, transferDays,
            term.seatsFrom.rawValue, term.registrarFeedURL?.absoluteString, term.registrarPollSeconds, term.maxUnits, term.refuseDuplicateCourses,
        ]
    }

    static func term(from row: Row) throws -> Term {
        try StoredTermText.term(
            id: row["id"], name: row["name"], firstDay: row["first_day"], lastDay: row["last_day"], timeZone: row["time_zone"],
            holidays: row["holidays"], transferDays: row["transfer_days"], seatsFrom: row["seats_from"],
            registrarFeedURL: row["registrar_feed_url"], registrarPollSeconds: row["registrar_poll_seconds"], maxUnits: row["max_units"],
            refuseDuplicateCourses: row["refuse_duplicate_courses"]
        )
    }
}

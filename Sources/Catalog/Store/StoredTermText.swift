import Foundation

/// How a term is kept in `catalog_terms` on every backend: dates as `YYYY-MM-DD` text,
/// holidays and transfer days as the API's JSON arrays, so a row reads back as the term put.
package enum StoredTermText {
    /// The holidays' and transfer days' JSON texts.
    package static func lists(of term: Term) throws -> (holidays: String, transferDays: String) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (
            String(decoding: try encoder.encode(term.holidays), as: UTF8.self),
            String(decoding: try encoder.encode(term.transferDays), as: UTF8.self)
        )
    }

    /// A term from its stored columns; a row that no longer reads as one (edited by hand) is an
    /// error naming the term, not a crash.
    package static func term(
        id: String, name: String, firstDay: String, lastDay: String, timeZone: String, holidays: String, transferDays: String,
        seatsFrom: String, registrarFeedURL: String?, registrarPollSeconds: Int?, maxUnits: Double? = nil,
        refuseDuplicateCourses: Bool = false
    ) throws -> Term {
        guard let source = Term.SeatsSource(rawValue: seatsFrom) else {
            throw StoredTermUnreadable(id: id, reason: "seats_from '\(seatsFrom)' is neither gateway nor registrar")
        }
        guard let first = CivilDate(parsing: firstDay), let last = CivilDate(parsing: lastDay) else {
            throw StoredTermUnreadable(id: id, reason: "first_day or last_day is not a date")
        }
        let decoder = JSONDecoder()
        do {
            return Term(
                id: id, name: name, firstDay: first, lastDay: last, timeZone: timeZone,
                holidays: try decoder.decode([Term.Holiday].self, from: Data(holidays.utf8)),
                transferDays: try decoder.decode([Term.TransferDay].self, from: Data(transferDays.utf8)),
                seatsFrom: source, registrarFeedURL: registrarFeedURL.flatMap { URL(string: $0) }, registrarPollSeconds: registrarPollSeconds, maxUnits: maxUnits,
                refuseDuplicateCourses: refuseDuplicateCourses
            )
        } catch {
            throw StoredTermUnreadable(id: id, reason: "\(error)")
        }
    }
}

/// A `catalog_terms` row that does not read back as a term.
package struct StoredTermUnreadable: Error, CustomStringConvertible {
    /// Names the row and what is wrong with it, for the log.
    package let description: String

    package init(id: String, reason: String) { description = "term '\(id)' in catalog_terms is unreadable: \(reason)" }
}

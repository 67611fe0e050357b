import Crypto
import Foundation
import Synchronization

/// Moodle regrades a course each time `gradereport_user_get_grade_items` is called, so its
/// answers are kept per (source, token, course) for the source's poll interval, and a student's
/// `refresh` asks again at most once per ``refreshInterval`` (other refreshes read what is kept).
/// Keys are digests: no token is held here.
final class MoodleGradeCache: Sendable {
    /// What a course's grade items call answered.
    enum Answer: Sendable {
        case items([MoodleRecords.GradeItem])
        /// `nopermissiontoviewgrades`.
        case notPermitted
    }

    struct Entry: Sendable {
        let answer: Answer
        let storedAt: Date
    }

    /// How often one student's refresh reaches Moodle.
    static let refreshInterval: TimeInterval = 60
    /// The most answers kept; past it the oldest go.
    static let capacity = 20_000

    private let entries = Mutex<[Data: Entry]>([:])
    private let refreshes = Mutex<[Data: Date]>([:])

    static func key(_ parts: String...) -> Data {
        Data(SHA256.hash(data: Data(parts.joined(separator: "\u{1F}").utf8)))
    }

    /// Whether this student's refresh may reach Moodle now (and, if so, counts it).
    func mayRefresh(student: Data, now: Date) -> Bool {
        refreshes.withLock { table in
            if let last = table[student], now.timeIntervalSince(last) < Self.refreshInterval, now >= last { return false }
            table[student] = now
            if table.count > Self.capacity {
                for (key, at) in table where now.timeIntervalSince(at) >= Self.refreshInterval { table[key] = nil }
            }
            return true
        }
    }

    /// The answer kept for `key`, if younger than `lifetime`.
    func answer(for key: Data, lifetime: TimeInterval, now: Date) -> Answer? {
        entries.withLock { table in
            guard let entry = table[key] else { return nil }
            let age = now.timeIntervalSince(entry.storedAt)
            guard age >= 0, age < lifetime else {
                table[key] = nil
                return nil
            }
            return entry.answer
        }
    }

    func store(_ answer: Answer, for key: Data, now: Date) {
        entries.withLock { table in
            table[key] = Entry(answer: answer, storedAt: now)
            guard table.count > Self.capacity else { return }
            let oldest = table.sorted { $0.value.storedAt < $1.value.storedAt }.prefix(table.count - Self.capacity * 9 / 10)
            for (key, _) in oldest { table[key] = nil }
        }
    }
}

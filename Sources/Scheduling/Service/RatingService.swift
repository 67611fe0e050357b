public import Catalog
public import Foundation
public import GatewayCore
public import Storage
import Synchronization

/// Ranking data: importing course GPAs and instructor ratings, and the ``RatingBook`` builds
/// rank with, cached for a few seconds (an import in this process refreshes it at once; one
/// made by the CLI is seen within `refreshInterval`).
public final class RatingService: Sendable {
    let transactions: any TransactionRunner
    let store: any RatingStoring
    let clock: any GatewayClock
    let refreshInterval: TimeInterval
    private let cached = Mutex<(book: RatingBook, loadedAt: Date)?>(nil)

    public init(transactions: any TransactionRunner, store: any RatingStoring, clock: any GatewayClock, refreshInterval: TimeInterval = 5) {
        self.transactions = transactions
        self.store = store
        self.clock = clock
        self.refreshInterval = refreshInterval
    }

    /// What was imported: rows taken and rows refused with their reasons.
    public struct ImportSummary: Sendable, Equatable {
        public var courses: Int
        public var instructors: Int
        public var rejected: [RatingsRejection]
    }

    public struct RatingsRejection: Sendable, Equatable {
        public var row: String
        public var reason: String
    }

    /// Imports a ratings file (`format` is `json` or `csv`). `replace` removes every rating
    /// the file does not name.
    public func importRatings(_ data: Data, format: String, replace: Bool) async throws -> ImportSummary {
        let document: RatingsDocument
        do {
            switch format {
            case "json": document = try RatingsDocument.parseJSON(data)
            case "csv":
                guard let text = String(data: data, encoding: .utf8) else { throw RatingsFormatError("The CSV file is not UTF-8 text.") }
                document = try RatingsDocument.parseCSV(text)
            default: throw RatingsFormatError("Unknown format '\(format)': use json or csv.")
            }
        } catch let error as RatingsFormatError {
            throw SchedulingError.ratingsFormat(error.message)
        }
        let now = clock.now()
        try await transactions.write { [store] db in try store.apply(document, replace: replace, at: now, in: db) }
        cached.withLock { $0 = nil }
        return ImportSummary(
            courses: document.courses.count, instructors: document.instructors.count,
            rejected: document.rejected.map { RatingsRejection(row: $0.row, reason: $0.reason) }
        )
    }

    /// The ranking data, at most `refreshInterval` old.
    public func book() async throws -> RatingBook {
        let now = clock.now()
        if let current = cached.withLock({ $0 }), now.timeIntervalSince(current.loadedAt) < refreshInterval, now >= current.loadedAt {
            return current.book
        }
        let book = try await transactions.read { [store] db in try store.book(in: db) }
        cached.withLock { $0 = (book, now) }
        return book
    }

    /// Seeds ``DemoRatings`` for the demo catalog when no rating exists yet; returns how many
    /// courses and instructors it rated.
    @discardableResult
    public func seedDemo(from index: CatalogIndex) async throws -> (courses: Int, instructors: Int) {
        let existing = try await counts()
        guard existing.courses == 0, existing.instructors == 0 else { return (0, 0) }
        let document = DemoRatings.document(for: index)
        let now = clock.now()
        try await transactions.write { [store] db in try store.apply(document, replace: false, at: now, in: db) }
        cached.withLock { $0 = nil }
        return (document.courses.count, document.instructors.count)
    }

    /// How many courses and instructors are rated.
    public func counts() async throws -> (courses: Int, instructors: Int) {
        try await transactions.read { [store] db in try store.counts(in: db) }
    }
}

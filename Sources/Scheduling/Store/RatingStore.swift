public import Contracts
public import Foundation

/// Course GPAs and instructor ratings, behind a protocol (``SQLiteRatingStore`` on SQLite).
public protocol RatingStoring: Sendable {
    /// Every course GPA (by course label) and instructor rating (by name).
    func book(in transaction: any StoreTransaction) throws -> RatingBook
    /// Adds or replaces the rows of a document; `replace` first removes every row it does not name.
    func apply(_ document: RatingsDocument, replace: Bool, at now: Date, in transaction: any StoreTransaction) throws
    /// How many courses and instructors are rated.
    func counts(in transaction: any StoreTransaction) throws -> (courses: Int, instructors: Int)
}

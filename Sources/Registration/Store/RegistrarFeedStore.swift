public import Catalog
public import Contracts
public import Foundation

/// One applied update of the registrar's feed, as the seat history keeps it.
public struct SeatHistoryEntry: Sendable, Equatable {
    /// When the gateway applied it.
    public var receivedAt: Date
    /// When the registrar's numbers were true.
    public var asOf: Date
    public var seats: Int
    public var enrolled: Int
    public var waitlisted: Int?
    public var status: SectionStatus
    /// How it came: `webhook` or `poll`.
    public var via: String

    public init(receivedAt: Date, asOf: Date, seats: Int, enrolled: Int, waitlisted: Int?, status: SectionStatus, via: String) {
        self.receivedAt = receivedAt
        self.asOf = asOf
        self.seats = seats
        self.enrolled = enrolled
        self.waitlisted = waitlisted
        self.status = status
        self.via = via
    }
}

/// The last poll of a term's registrar feed and how it went.
public struct RegistrarPollRecord: Sendable, Equatable {
    public var term: String
    public var polledAt: Date
    public var outcome: String

    public init(term: String, polledAt: Date, outcome: String) {
        self.term = term
        self.polledAt = polledAt
        self.outcome = outcome
    }
}

/// What Registration keeps of the registrar's feed: the `asOf` of the last update applied to
/// each class (times as milliseconds since 1970, so equal instants compare equal on every
/// backend), each class's seat history, the webhook deliveries already applied, and each term's
/// last poll. Every method runs inside the caller's transaction.
public protocol RegistrarFeedStoring: Sendable {
    /// The `asOf` (ms since 1970) of the last update applied to each of the classes.
    func lastApplied(of classIDs: [Int64], in transaction: any StoreTransaction) throws -> [Int64: Int64]
    /// Records updates applied now: each class's last `asOf`, and a history entry each.
    func recordApplied(_ entries: [(classID: Int64, update: RegistrarSeatUpdate)], via: String, at now: Date, in transaction: any StoreTransaction) throws
    /// Records a webhook delivery's id; false when it was recorded before (a replay).
    func claimDelivery(id: String, at now: Date, in transaction: any StoreTransaction) throws -> Bool
    /// The class's history, newest first, at most `limit` entries.
    func history(classID: Int64, limit: Int, in transaction: any StoreTransaction) throws -> [SeatHistoryEntry]
    /// Removes history entries and delivery ids older than `before`; returns how many rows went.
    @discardableResult
    func prune(before: Date, in transaction: any StoreTransaction) throws -> Int
    /// The term's last poll, if any.
    func lastPoll(term: String, in transaction: any StoreTransaction) throws -> RegistrarPollRecord?
    func recordPoll(_ record: RegistrarPollRecord, in transaction: any StoreTransaction) throws
}

extension Date {
    /// Milliseconds since 1970, as the registrar feed's store compares instants.
    public var feedMilliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }

    public init(feedMilliseconds: Int64) { self.init(timeIntervalSince1970: Double(feedMilliseconds) / 1000) }
}

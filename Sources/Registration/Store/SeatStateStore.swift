public import Contracts
public import Foundation

/// Whether each class was last seen open to newcomers: what turns seat-count changes into
/// open and close events (``OpenSeatAnnouncer``). Kept in the database, in the transaction
/// that changes the seats, so an event is reported exactly once whichever process made it.
public protocol SeatStateStoring: Sendable {
    /// The recorded state of some classes; a class never recorded is left out.
    func openStates(of ids: some Collection<Int64>, in transaction: any StoreTransaction) throws -> [Int64: Bool]
    /// Records whether each class is open to newcomers (an import records thousands at once).
    func record(_ states: [(classID: Int64, open: Bool)], at now: Date, in transaction: any StoreTransaction) throws
}

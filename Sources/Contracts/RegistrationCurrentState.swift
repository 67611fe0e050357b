public import Foundation

/// What a registration event's notification checks before it goes out, answered by the
/// Registration module: a seat may have been taken, an offer claimed or a class restored
/// between the moment the job was queued and the moment it runs. Push asks; it never reads
/// Registration's tables.
public protocol RegistrationCurrentState: Sendable {
    /// The offer's state now.
    func offer(id: Int64) async throws -> SeatOfferState
    /// The class's open seats now, or nil when there is no such class (deleted).
    func openSeats(classID: Int64) async throws -> Int?
    /// Whether the account's student is enrolled in the class now.
    func isEnrolled(accountID: Int64, classID: Int64) async throws -> Bool
}

/// A waitlist seat offer as its student sees it now.
public enum SeatOfferState: Sendable, Equatable {
    /// Still claimable until `expiresAt`.
    case open(expiresAt: Date)
    case claimed
    case declined
    /// The claim window passed (swept or not yet swept).
    case expired
    /// No such offer (its class was deleted).
    case unknown
}

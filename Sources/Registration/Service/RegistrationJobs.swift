import Foundation
import Jobs

/// The jobs the Registration module enqueues, always in the same transaction as the change
/// that causes them (the transactional outbox).
///
/// | kind | queue | when | handler |
/// |---|---|---|---|
/// | `registration.offer-expiry` | `default` | at an offer's expiry (`offer` policy) | ``RegistrationService/expireOffer(offerID:)`` |
/// | `push.seat-offered` | `push` | a waitlisted student is offered a seat | Push module |
/// | `push.offer-expired` | `push` | an offer lapsed unclaimed | Push module |
/// | `push.waitlist-enrolled` | `push` | the `auto` policy enrolled a waitlisted student | Push module |
/// | `push.seat-opened` | `push` | a seat opened in a class with a waitlist (`none` policy) | Push module |
/// | `push.class-cancelled` | `push` | an admin deleted a class its students were in | Push module |
public enum RegistrationJobs {
    public static let offerExpiry = "registration.offer-expiry"
    public static let seatOffered = "push.seat-offered"
    public static let offerExpired = "push.offer-expired"
    public static let waitlistEnrolled = "push.waitlist-enrolled"
    public static let seatOpened = "push.seat-opened"
    public static let classCancelled = "push.class-cancelled"

    /// A periodic safety net (declare it as a schedule): ``RegistrationService/sweepExpiredOffers()``.
    public static let sweepOffers = "registration.sweep-offers"

    public static let queue = "default"
    public static let pushQueue = "push"

    /// `registration.offer-expiry`: expire this offer if it is still open.
    public struct OfferExpiryArgs: Codable, Sendable, Equatable {
        public var offerId: Int64
        public var classId: Int64
        public var expiresAt: Date
    }

    /// `registration.sweep-offers`: no arguments.
    public struct SweepOffersArgs: Codable, Sendable, Equatable {
        public init() {}
    }

    /// `push.seat-offered`: tell the student a seat is held for them until `expiresAt`.
    public struct SeatOfferedArgs: Codable, Sendable, Equatable {
        public var accountId: Int64
        public var classId: Int64
        public var offerId: Int64
        public var expiresAt: Date
    }

    /// `push.offer-expired`: tell the student their offer lapsed and they left the waitlist.
    public struct OfferExpiredArgs: Codable, Sendable, Equatable {
        public var accountId: Int64
        public var classId: Int64
        public var offerId: Int64
    }

    /// `push.waitlist-enrolled`: tell the student they were enrolled from the waitlist.
    public struct WaitlistEnrolledArgs: Codable, Sendable, Equatable {
        public var accountId: Int64
        public var classId: Int64
    }

    /// `push.class-cancelled`: tell the students (enrolled, waitlisted or offered a seat) that
    /// the class was deleted and they are no longer in it.
    public struct ClassCancelledArgs: Codable, Sendable, Equatable {
        public var classId: Int64
        public var accountIds: [Int64]
    }

    /// `push.seat-opened`: tell the waitlisted students (in line order) that seats opened.
    public struct SeatOpenedArgs: Codable, Sendable, Equatable {
        public var classId: Int64
        public var openSeats: Int
        public var accountIds: [Int64]
    }
}

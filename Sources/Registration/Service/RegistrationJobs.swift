import Catalog
public import Contracts
public import Foundation

/// The Registration module's own jobs. What it asks of the Push module (`push.*`) is in
/// ``PushJobs`` (Contracts); all are enqueued in the transaction of the change that causes
/// them (the transactional outbox).
///
/// | kind | queue | when | handler |
/// |---|---|---|---|
/// | `registration.offer-expiry` | `default` | at an offer's expiry (`offer` policy) | ``RegistrationService/expireOffer(offerID:)`` |
/// | `registration.sweep-offers` | `default` | every minute (a schedule) | ``RegistrationService/sweepExpiredOffers()`` |
/// | `registration.poll-registrar` | `default` | every 30 seconds (a schedule) | ``RegistrarFeedService/pollDue()`` |
public enum RegistrationJobs {
    /// Polls the registrar feeds of terms that publish one and are due, and prunes seat history.
    public static let pollRegistrar = JobKind<NoPayload>("registration.poll-registrar")
    /// Expire this offer if it is still open.
    public static let offerExpiry = JobKind<OfferExpiry>("registration.offer-expiry")
    /// A periodic safety net that closes any lapsed offer a missed job left open.
    public static let sweepOffers = JobKind<NoPayload>("registration.sweep-offers")

    /// `registration.offer-expiry`'s payload.
    public struct OfferExpiry: Codable, Sendable, Equatable {
        public var offerId: Int64
        public var classId: Int64
        public var expiresAt: Date
    }
}

public import Foundation
import Jobs
import Contracts
import Catalog

/// The waitlist policy's background work, run by jobs: an offer's expiry, seats freed outside
/// a student's request, and the periodic sweep of lapsed offers.
public struct OfferService: RegistrationUseCase {
    let environment: RegistrationEnvironment

    /// What ``expireOffer(offerID:)`` did.
    public enum OfferExpiryOutcome: Sendable, Equatable {
        /// The offer lapsed; the seat passed on.
        case expired
        /// The offer is still inside its window (the job ran early): run again at this time.
        case notDue(Date)
        /// The offer was already claimed, declined or expired, or does not exist.
        case alreadyClosed
    }

    /// The handler of `registration.offer-expiry`: expires the offer when its window has
    /// passed and offers the seat to the next student in line.
    public func expireOffer(offerID: Int64) async throws -> OfferExpiryOutcome {
        let promoter = self.promoter
        return try await write { db, now, touched -> Result<OfferExpiryOutcome, RegistrationError> in
            guard let (offer, state) = try stores.enrollments.offer(id: offerID, in: db), state == .open else {
                return .success(.alreadyClosed)
            }
            guard offer.expiresAt <= now else { return .success(.notDue(offer.expiresAt)) }
            try promoter.expireDueOffers(classID: offer.classID, now: now, in: db, touched: &touched)
            return .success(.expired)
        }
    }

    /// Expires every lapsed offer in the catalog (a periodic safety net beside the expiry
    /// jobs). Returns how many expired.
    public func sweepExpiredOffers() async throws -> Int {
        let promoter = self.promoter
        return try await write { db, now, touched -> Result<Int, RegistrationError> in
            .success(try promoter.expireDueOffers(classID: nil, now: now, in: db, touched: &touched))
        }
    }
}

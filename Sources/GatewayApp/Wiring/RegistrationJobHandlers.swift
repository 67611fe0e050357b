import Foundation
import Jobs
import Registration

/// Connects the Registration module's background work to the job system: offer expiry (one job
/// per offer, due when the claim window closes) and a sweep every minute that closes any lapsed
/// offer a missed job left open. The `push.*` kinds Registration enqueues wait on the `push`
/// queue for the Push module.
enum RegistrationJobHandlers {
    static func register(_ registration: RegistrationService, in registry: JobRegistry) throws {
        registry.register(kind: RegistrationJobs.offerExpiry, args: RegistrationJobs.OfferExpiryArgs.self) { args, context in
            switch try await registration.expireOffer(offerID: args.offerId) {
            case .expired, .alreadyClosed:
                return .complete
            case .notDue(let due):
                return .snooze(seconds: max(1, due.timeIntervalSince(context.clock.now())))
            }
        }
        registry.register(kind: RegistrationJobs.sweepOffers, args: RegistrationJobs.SweepOffersArgs.self) { _, _ in
            _ = try await registration.sweepExpiredOffers()
            return .complete
        }
        registry.schedule(
            try ScheduleDefinition(
                name: RegistrationJobs.sweepOffers, kind: RegistrationJobs.sweepOffers,
                args: RegistrationJobs.SweepOffersArgs(), rule: .every(seconds: 60)
            )
        )
    }
}

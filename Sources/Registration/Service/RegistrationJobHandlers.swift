import GatewayCore
import Contracts
import Foundation
import Jobs
import Registration

/// Connects the Registration module's background work to the job system: offer expiry (one job
/// per offer, due when the claim window closes), a sweep every minute that closes any lapsed
/// offer a missed job left open, and the registrar feeds' poll every 30 seconds. The `push.*` kinds Registration enqueues are handled by the
/// Push module (`Push.PushJobHandlers`).
enum RegistrationJobHandlers {
    static func register(_ registration: RegistrationService, in registry: JobRegistry) throws {
        registry.register(RegistrationJobs.offerExpiry) { args, context in
            switch try await registration.offers.expireOffer(offerID: args.offerId) {
            case .expired, .alreadyClosed:
                return .complete
            case .notDue(let due):
                return .snooze(seconds: max(1, due.timeIntervalSince(context.clock.now())))
            }
        }
        registry.register(RegistrationJobs.sweepOffers) { _, _ in
            _ = try await registration.offers.sweepExpiredOffers()
            // Events a one-trip registration wrote but did not queue (it died in between).
            _ = try await registration.enrollment.dispatchSeatEvents()
            return .complete
        }
        registry.schedule(
            try ScheduleDefinition(
                name: RegistrationJobs.sweepOffers.name, kind: RegistrationJobs.sweepOffers, payload: NoPayload(), rule: .every(seconds: 60)
            )
        )
        registry.register(RegistrationJobs.pollRegistrar) { _, _ in
            _ = try await registration.registrar.pollDue()
            return .complete
        }
        registry.schedule(
            try ScheduleDefinition(
                name: RegistrationJobs.pollRegistrar.name, kind: RegistrationJobs.pollRegistrar, payload: NoPayload(), rule: .every(seconds: 30)
            )
        )
    }
}

import FoundationEssentials
import Contracts
public import Jobs
public import Logging

/// The `log` delivery channel: every notification another module asks for (``PushJobs``) is
/// written to the service log as one structured line (account and class ids, never names or
/// contact details), so the `push` queue is worked and drains. Device delivery (APNs, Web
/// Push, webhooks) replaces this per device when the Push module's subscriptions arrive; the
/// log channel stays for demo and development devices.
public struct NotificationLog: Sendable {
    let logger: Logger

    public init(logger: Logger) {
        var logger = logger
        logger[metadataKey: "channel"] = "log"
        self.logger = logger
    }

    /// Registers a handler for every kind in ``PushJobs``.
    public func register(in registry: JobRegistry) {
        let logger = self.logger
        registry.register(PushJobs.seatOffered) { args, _ in
            logger.info("notify: seat offered", metadata: [
                "account": "\(args.accountId)", "class": "\(args.classId)", "offer": "\(args.offerId)",
                "expires_at": "\(args.expiresAt.timeIntervalSince1970)",
            ])
            return .complete
        }
        registry.register(PushJobs.offerExpired) { args, _ in
            logger.info("notify: offer expired", metadata: ["account": "\(args.accountId)", "class": "\(args.classId)", "offer": "\(args.offerId)"])
            return .complete
        }
        registry.register(PushJobs.waitlistEnrolled) { args, _ in
            logger.info("notify: enrolled from the waitlist", metadata: ["account": "\(args.accountId)", "class": "\(args.classId)"])
            return .complete
        }
        registry.register(PushJobs.seatOpened) { args, _ in
            logger.info("notify: seats opened", metadata: [
                "class": "\(args.classId)", "open_seats": "\(args.openSeats)", "recipients": "\(args.accountIds.count)",
            ])
            return .complete
        }
        registry.register(PushJobs.classCancelled) { args, _ in
            logger.info("notify: class cancelled", metadata: ["class": "\(args.classId)", "recipients": "\(args.accountIds.count)"])
            return .complete
        }
    }
}

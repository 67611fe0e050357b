public import Contracts
import Foundation
public import Jobs

/// Handles every `push.*` kind other modules enqueue (``PushJobs``) by queueing a notification
/// for each of the student's devices, once per event (the unique key is the event), and works
/// `push.deliver`.
///
/// Each handler first asks Registration for the current state (``RegistrationCurrentState``):
/// a job may run after the offer was claimed, the seat taken or the student dropped, and then
/// it tells nobody.
public struct PushJobHandlers: Sendable {
    let service: PushService
    let seatAlerts: SeatAlertService?
    let registration: (any RegistrationCurrentState)?

    public init(service: PushService, seatAlerts: SeatAlertService? = nil, registration: (any RegistrationCurrentState)? = nil) {
        self.service = service
        self.seatAlerts = seatAlerts
        self.registration = registration
    }

    public func register(in registry: JobRegistry) {
        let service = self.service, seatAlerts = self.seatAlerts, registration = self.registration
        registry.register(PushJobs.seatOffered) { args, _ in
            // Claimed, declined or expired since: nothing to claim any more.
            if let registration {
                guard case .open = try await registration.offer(id: args.offerId) else { return .complete }
            }
            try await service.notify(accountID: args.accountId, uniqueKey: "offer:\(args.offerId)", OutgoingNotification(
                id: "offer-\(args.offerId)", category: "waitlist.offer", title: "A seat is yours to claim",
                body: "A seat opened in class \(args.classId). Claim it before \(Self.time(args.expiresAt)).",
                data: ["classId": String(args.classId), "offerId": String(args.offerId)], urgent: true,
                collapseID: "offer-\(args.offerId)", expiresAt: args.expiresAt
            ))
            return .complete
        }
        registry.register(PushJobs.offerExpired) { args, _ in
            if let registration, try await registration.offer(id: args.offerId) != .expired { return .complete }
            try await service.notify(accountID: args.accountId, uniqueKey: "offer-expired:\(args.offerId)", OutgoingNotification(
                id: "offer-expired-\(args.offerId)", category: "waitlist.offer", title: "Your seat offer expired",
                body: "The seat held for you in class \(args.classId) went to the next student.",
                data: ["classId": String(args.classId), "offerId": String(args.offerId)], collapseID: "offer-\(args.offerId)"
            ))
            return .complete
        }
        registry.register(PushJobs.waitlistEnrolled) { args, _ in
            if let registration, !(try await registration.isEnrolled(accountID: args.accountId, classID: args.classId)) { return .complete }
            try await service.notify(accountID: args.accountId, uniqueKey: "enrolled:\(args.accountId):\(args.classId)", OutgoingNotification(
                id: "enrolled-\(args.accountId)-\(args.classId)", category: "waitlist.enrolled", title: "You're in",
                body: "You were enrolled in class \(args.classId) from its waitlist.", data: ["classId": String(args.classId)], urgent: true
            ))
            return .complete
        }
        registry.register(PushJobs.seatOpened) { args, context in
            // Taken again (or the class is gone) before the job ran: no seat to tell about.
            var openSeats = args.openSeats
            if let registration {
                openSeats = try await registration.openSeats(classID: args.classId) ?? 0
                guard openSeats > 0 else { return .complete }
            }
            for account in args.accountIds {
                try await service.notify(accountID: account, uniqueKey: "seat-opened:\(args.classId):\(context.jobID)", OutgoingNotification(
                    id: "seat-\(args.classId)-\(context.jobID)", category: "seat.open", title: "A seat opened",
                    body: "\(openSeats) seat(s) opened in class \(args.classId).", data: ["classId": String(args.classId)], urgent: true,
                    collapseID: "seat-\(args.classId)"
                ))
            }
            // Students watching the class (seat alerts), once per open event.
            try await seatAlerts?.seatOpened(classID: args.classId, openSeats: openSeats, event: context.jobID)
            return .complete
        }
        registry.register(PushJobs.classCancelled) { args, context in
            // A class that exists again (restored or re-imported under its id) was not cancelled for them.
            if let registration, try await registration.openSeats(classID: args.classId) != nil { return .complete }
            for account in args.accountIds {
                try await service.notify(accountID: account, uniqueKey: "cancelled:\(args.classId)", OutgoingNotification(
                    id: "cancelled-\(args.classId)-\(context.jobID)", category: "class.cancelled", title: "Class cancelled",
                    body: "Class \(args.classId) was cancelled.", data: ["classId": String(args.classId)], urgent: true
                ))
            }
            return .complete
        }
        registry.register(PushService.deliver) { args, _ in
            try await service.deliver(notificationID: args.notificationId)
        }
    }

    static func time(_ date: Date) -> String { date.formatted(.iso8601) }
}

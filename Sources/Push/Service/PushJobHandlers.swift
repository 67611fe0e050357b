public import Contracts
import Foundation
public import Jobs

/// Handles every `push.*` kind other modules enqueue (``PushJobs``) by queueing a notification
/// for each of the student's devices, once per event (the unique key is the event), and works
/// `push.deliver`.
///
/// Each handler first asks Registration for the current state (``RegistrationCurrentState``):
/// a job may run after the offer was claimed, the seat taken or the student dropped, and then
/// it tells nobody. Every notification names its class through ``ClassDirectory``.
public struct PushJobHandlers: Sendable {
    let service: PushService
    let seatAlerts: SeatAlertService
    let registration: any RegistrationCurrentState
    let directory: any ClassDirectory

    public init(service: PushService, seatAlerts: SeatAlertService, registration: any RegistrationCurrentState, directory: any ClassDirectory) {
        self.service = service
        self.seatAlerts = seatAlerts
        self.registration = registration
        self.directory = directory
    }

    public func register(in registry: JobRegistry) {
        let service = self.service, seatAlerts = self.seatAlerts, registration = self.registration, directory = self.directory
        registry.register(PushJobs.seatOffered) { args, _ in
            // Claimed, declined or expired since: nothing to claim any more.
            guard case .open = try await registration.offer(id: args.offerId) else { return .complete }
            let label = try await directory.label(classID: args.classId)
            try await service.notify(accountID: args.accountId, uniqueKey: "offer:\(args.offerId)", OutgoingNotification(
                id: "offer-\(args.offerId)", category: "waitlist.offer",
                title: RegistrationNoticeText.offerTitle(label, classID: args.classId),
                body: RegistrationNoticeText.offerBody(label, classID: args.classId, expiresAt: args.expiresAt),
                data: RegistrationNoticeText.data(label, classID: args.classId, extra: ["offerId": String(args.offerId)]), urgent: true,
                collapseID: "offer-\(args.offerId)", expiresAt: args.expiresAt
            ))
            return .complete
        }
        registry.register(PushJobs.offerExpired) { args, _ in
            guard try await registration.offer(id: args.offerId) == .expired else { return .complete }
            let label = try await directory.label(classID: args.classId)
            try await service.notify(accountID: args.accountId, uniqueKey: "offer-expired:\(args.offerId)", OutgoingNotification(
                id: "offer-expired-\(args.offerId)", category: "waitlist.offer",
                title: RegistrationNoticeText.offerExpiredTitle(label, classID: args.classId),
                body: RegistrationNoticeText.offerExpiredBody(label, classID: args.classId),
                data: RegistrationNoticeText.data(label, classID: args.classId, extra: ["offerId": String(args.offerId)]),
                collapseID: "offer-\(args.offerId)"
            ))
            return .complete
        }
        registry.register(PushJobs.waitlistEnrolled) { args, context in
            guard try await registration.isEnrolled(accountID: args.accountId, classID: args.classId) else { return .complete }
            let label = try await directory.label(classID: args.classId)
            // One job per promotion (queued with it), so its id names this promotion: a student
            // enrolled from the line into the same class again later is told again, while a
            // replay of this job adds nothing.
            try await service.notify(accountID: args.accountId, uniqueKey: "enrolled:\(args.accountId):\(args.classId):\(context.jobID)", OutgoingNotification(
                id: "enrolled-\(args.accountId)-\(args.classId)-\(context.jobID)", category: "waitlist.enrolled",
                title: RegistrationNoticeText.enrolledTitle(label, classID: args.classId),
                body: RegistrationNoticeText.enrolledBody(label, classID: args.classId),
                data: RegistrationNoticeText.data(label, classID: args.classId), urgent: true
            ))
            return .complete
        }
        registry.register(PushJobs.seatOpened) { args, context in
            // The line of a class under the `none` policy. Taken again (or the class is gone)
            // before the job ran: no seat to tell about.
            let openSeats = try await registration.openSeats(classID: args.classId) ?? 0
            guard openSeats > 0 else { return .complete }
            let label = try await directory.label(classID: args.classId)
            for account in args.accountIds {
                try await service.notify(accountID: account, uniqueKey: "seat-opened:\(args.classId):\(context.jobID)", OutgoingNotification(
                    id: "seat-\(args.classId)-\(context.jobID)", category: "seat.open",
                    title: RegistrationNoticeText.lineTitle(label, classID: args.classId, openSeats: openSeats),
                    body: RegistrationNoticeText.lineBody(label, classID: args.classId, openSeats: openSeats),
                    data: RegistrationNoticeText.data(label, classID: args.classId), urgent: true, collapseID: "seat-\(args.classId)"
                ))
            }
            return .complete
        }
        registry.register(PushJobs.classOpened) { args, context in
            // Closed again before the job ran: the close event clears it; nobody is told.
            let openSeats = try await registration.openSeats(classID: args.classId) ?? 0
            guard openSeats > 0 else { return .complete }
            try await seatAlerts.classOpened(args.label, openSeats: openSeats, event: context.jobID)
            return .complete
        }
        registry.register(SeatAlertService.foldedOpening) { args, context in
            // Closed again by the time the fold's hour ended: nothing to tell.
            let openSeats = try await registration.openSeats(classID: args.label.classId) ?? 0
            guard openSeats > 0 else { return .complete }
            try await seatAlerts.sendFolded(args, openSeats: openSeats, event: context.jobID)
            return .complete
        }
        registry.register(PushJobs.classClosed) { args, context in
            // Open again before the job ran: a newer open event follows; this close is stale.
            if let open = try await registration.openSeats(classID: args.classId), open > 0 { return .complete }
            try await seatAlerts.classClosed(args.label, event: context.jobID)
            return .complete
        }
        registry.register(PushJobs.classCancelled) { args, context in
            // A class that exists again (restored or re-imported under its id) was not cancelled for them.
            if try await registration.openSeats(classID: args.classId) != nil { return .complete }
            for account in args.accountIds {
                try await service.notify(accountID: account, uniqueKey: "cancelled:\(args.classId)", OutgoingNotification(
                    id: "cancelled-\(args.classId)-\(context.jobID)", category: "class.cancelled",
                    title: RegistrationNoticeText.cancelledTitle(args.label, classID: args.classId),
                    body: RegistrationNoticeText.cancelledBody(args.label, classID: args.classId),
                    data: RegistrationNoticeText.data(args.label, classID: args.classId), urgent: true
                ))
            }
            return .complete
        }
        registry.register(PushJobs.registrationSkipped) { args, context in
            // Enrolled or off the line since: nothing to tell.
            guard try await !registration.isEnrolled(accountID: args.accountId, classID: args.classId) else { return .complete }
            let label = try await directory.label(classID: args.classId)
            try await service.notify(accountID: args.accountId, uniqueKey: "skipped:\(context.jobID)", OutgoingNotification(
                id: "skipped-\(args.accountId)-\(args.classId)-\(context.jobID)", category: "registration.skipped",
                title: RegistrationNoticeText.skippedTitle(label, classID: args.classId),
                body: args.messages.joined(separator: " "),
                data: RegistrationNoticeText.data(label, classID: args.classId, extra: ["rules": args.rules.joined(separator: ",")])
            ))
            return .complete
        }
        registry.register(PushJobs.prerequisiteUnmet) { args, context in
            let label = try await directory.label(classID: args.classId)
            try await service.notify(accountID: args.accountId, uniqueKey: "prerequisite-unmet:\(context.jobID)", OutgoingNotification(
                id: "prerequisite-\(args.accountId)-\(args.classId)-\(context.jobID)", category: "registration.prerequisite-unmet",
                title: RegistrationNoticeText.prerequisiteTitle(label, classID: args.classId),
                body: args.message, data: RegistrationNoticeText.data(label, classID: args.classId)
            ))
            return .complete
        }
        registry.register(PushService.deliver) { args, _ in
            try await service.deliver(notificationID: args.notificationId)
        }
    }
}

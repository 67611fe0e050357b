public import Foundation

/// What other modules ask the Push module to tell a student. Registration enqueues these in
/// the transaction that causes them (the transactional outbox); Push handles them.
///
/// | kind | when |
/// |---|---|
/// | `push.seat-offered` | a waitlisted student is offered a seat (`offer` policy) |
/// | `push.offer-expired` | an offer lapsed unclaimed |
/// | `push.waitlist-enrolled` | the `auto` policy enrolled a waitlisted student |
/// | `push.seat-opened` | a seat opened in a class with a waitlist (`none` policy): its line is told |
/// | `push.class-opened` | an open event: a class went from no seat open to newcomers to at least one |
/// | `push.class-closed` | a class that was open to newcomers has no seat open any more |
/// | `push.class-cancelled` | an admin deleted a class its students were in |
/// | `push.registration-skipped` | a seat came to a waitlisted student the eligibility rules now refuse |
/// | `push.prerequisite-unmet` | a grade posted below an enrolled class's prerequisite |
///
/// Every payload that names a class may carry its ``ClassLabel`` (optional, so jobs queued
/// before labels existed still decode), so a notification names the course and section.
public enum PushJobs {
    /// The queue every notification waits in.
    public static let queue = "push"

    public static let seatOffered = JobKind<SeatOffered>("push.seat-offered", queue: queue)
    public static let offerExpired = JobKind<OfferExpired>("push.offer-expired", queue: queue)
    public static let waitlistEnrolled = JobKind<WaitlistEnrolled>("push.waitlist-enrolled", queue: queue)
    public static let seatOpened = JobKind<SeatOpened>("push.seat-opened", queue: queue)
    public static let classCancelled = JobKind<ClassCancelled>("push.class-cancelled", queue: queue)
    public static let classOpened = JobKind<ClassOpened>("push.class-opened", queue: queue)
    public static let classClosed = JobKind<ClassClosed>("push.class-closed", queue: queue)
    public static let registrationSkipped = JobKind<RegistrationSkipped>("push.registration-skipped", queue: queue)
    public static let prerequisiteUnmet = JobKind<PrerequisiteUnmet>("push.prerequisite-unmet", queue: queue)

    /// A seat of the class came to the student in line, and the eligibility rules refused it
    /// (a new hold, units over the limit...): they keep their place; `messages` say why.
    public struct RegistrationSkipped: Codable, Sendable, Equatable {
        public var accountId: Int64
        public var classId: Int64
        public var rules: [String]
        public var messages: [String]

        public init(accountId: Int64, classId: Int64, rules: [String], messages: [String]) {
            self.accountId = accountId
            self.classId = classId
            self.rules = rules
            self.messages = messages
        }
    }

    /// A grade posted in the student's record leaves a prerequisite of a class they are
    /// enrolled in unmet (it was in progress). The enrollment stays: the registrar decides.
    public struct PrerequisiteUnmet: Codable, Sendable, Equatable {
        public var accountId: Int64
        public var classId: Int64
        public var message: String

        public init(accountId: Int64, classId: Int64, message: String) {
            self.accountId = accountId
            self.classId = classId
            self.message = message
        }
    }

    /// A seat is held for the student until `expiresAt`.
    public struct SeatOffered: Codable, Sendable, Equatable {
        public var accountId: Int64
        public var classId: Int64
        public var offerId: Int64
        public var expiresAt: Date

        public init(accountId: Int64, classId: Int64, offerId: Int64, expiresAt: Date) {
            self.accountId = accountId
            self.classId = classId
            self.offerId = offerId
            self.expiresAt = expiresAt
        }
    }

    /// The student's offer lapsed and they left the waitlist.
    public struct OfferExpired: Codable, Sendable, Equatable {
        public var accountId: Int64
        public var classId: Int64
        public var offerId: Int64

        public init(accountId: Int64, classId: Int64, offerId: Int64) {
            self.accountId = accountId
            self.classId = classId
            self.offerId = offerId
        }
    }

    /// The student was enrolled from the waitlist.
    public struct WaitlistEnrolled: Codable, Sendable, Equatable {
        public var accountId: Int64
        public var classId: Int64

        public init(accountId: Int64, classId: Int64) {
            self.accountId = accountId
            self.classId = classId
        }
    }

    /// Seats opened in a class; the waitlisted students, in line order, should hurry.
    public struct SeatOpened: Codable, Sendable, Equatable {
        public var classId: Int64
        public var openSeats: Int
        public var accountIds: [Int64]

        public init(classId: Int64, openSeats: Int, accountIds: [Int64]) {
            self.classId = classId
            self.openSeats = openSeats
            self.accountIds = accountIds
        }
    }

    /// The class was deleted; these students (enrolled, waitlisted or offered a seat) are no
    /// longer in it.
    public struct ClassCancelled: Codable, Sendable, Equatable {
        public var classId: Int64
        public var accountIds: [Int64]
        public var label: ClassLabel?

        public init(classId: Int64, accountIds: [Int64], label: ClassLabel? = nil) {
            self.classId = classId
            self.accountIds = accountIds
            self.label = label
        }
    }

    /// An open event: after the waitlist policy took what it takes, `openSeats` seats of the
    /// class are open to newcomers, where none were. Its watchers (class and course seat
    /// alerts) are told once.
    public struct ClassOpened: Codable, Sendable, Equatable {
        public var classId: Int64
        public var openSeats: Int
        public var label: ClassLabel

        public init(classId: Int64, openSeats: Int, label: ClassLabel) {
            self.classId = classId
            self.openSeats = openSeats
            self.label = label
        }
    }

    /// The class has no seat open to newcomers any more (taken, held for the line, or the
    /// class was deleted). Alerts that asked to be told hear it; re-arming alerts arm again.
    public struct ClassClosed: Codable, Sendable, Equatable {
        public var classId: Int64
        public var label: ClassLabel

        public init(classId: Int64, label: ClassLabel) {
            self.classId = classId
            self.label = label
        }
    }
}

extension PushJobs {
    /// Every kind above, by name: what a Push module must handle.
    public static let kindNames: [String] = [
        seatOffered.name, offerExpired.name, waitlistEnrolled.name, seatOpened.name, classCancelled.name,
        classOpened.name, classClosed.name, registrationSkipped.name, prerequisiteUnmet.name,
    ]
}

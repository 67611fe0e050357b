public import Catalog

/// What a student's situation is with respect to one class.
public struct StudentStanding: Sendable, Equatable {
    /// The classes the student is enrolled in during the class's term (the class itself
    /// included when enrolled).
    public var enrolledClasses: [ClassSeats]
    public var isWaitlisted: Bool
    /// Whether the student holds an open offer of a seat in this class.
    public var holdsOffer: Bool

    public init(enrolledClasses: [ClassSeats], isWaitlisted: Bool = false, holdsOffer: Bool = false) {
        self.enrolledClasses = enrolledClasses
        self.isWaitlisted = isWaitlisted
        self.holdsOffer = holdsOffer
    }
}

/// A rule an enrollment change would break. Each has an SDSU string and a v1 problem type.
public enum EnrollmentViolation: Error, Sendable, Equatable {
    /// The student is already enrolled in the class.
    case alreadyEnrolled
    /// No seat is open to this student.
    case classFull
    /// The student already has `limit` classes this term.
    case classLimit(limit: Int)
    /// A meeting overlaps a meeting of a class the student is enrolled in.
    case timeConflict(classID: Int64)
    /// The student is already on the class's waitlist.
    case alreadyWaitlisted
    /// Waitlisting is only for full classes.
    case notFull
    /// Dropping a class the student is not enrolled in.
    case notEnrolled
    /// Leaving a waitlist the student is not on.
    case notWaitlisted
    /// Claiming or declining an offer the student does not hold (or that expired).
    case noOffer
    /// The student is already on `limit` waitlists (a bound, so no account can grow the
    /// waitlist tables without end).
    case waitlistLimit(limit: Int)
    /// The class's term takes its seats from the campus registrar: students register there,
    /// and the gateway only mirrors the counts.
    case registrationAtRegistrar
}

extension EnrollmentRules {
    /// The most waitlists one student may be on at once.
    public static let maximumWaitlists = 25
}

/// The enrollment rules as pure functions, so every edge case is unit-tested without a
/// database. The service evaluates them inside the one write transaction that then applies
/// the change, so no concurrent request can slip between the check and the write.
public enum EnrollmentRules {
    /// Why the student may not register for `target`, or nil when they may.
    ///
    /// Checked in this order: a registrar term (nobody registers through the gateway), already enrolled, full (unless the student holds an offer for
    /// the seat), class limit, time conflict.
    public static func registrationViolation(
        target: ClassSeats, standing: StudentStanding, classLimit: Int
    ) -> EnrollmentViolation? {
        if target.seatsAtRegistrar { return .registrationAtRegistrar }
        let others = standing.enrolledClasses.filter { $0.id != target.id && $0.term == target.term }
        if standing.enrolledClasses.contains(where: { $0.id == target.id }) { return .alreadyEnrolled }
        if !standing.holdsOffer, target.openSeats <= 0 { return .classFull }
        if others.count >= classLimit { return .classLimit(limit: classLimit) }
        if let clash = firstConflict(of: target, with: others) { return .timeConflict(classID: clash) }
        return nil
    }

    /// Why the student may not join `target`'s waitlist, or nil when they may. A class is
    /// waitlistable only when no seat is open; a student joins it once.
    public static func waitlistViolation(target: ClassSeats, standing: StudentStanding) -> EnrollmentViolation? {
        if target.seatsAtRegistrar { return .registrationAtRegistrar }
        if standing.enrolledClasses.contains(where: { $0.id == target.id }) { return .alreadyEnrolled }
        if standing.isWaitlisted { return .alreadyWaitlisted }
        if target.openSeats > 0 { return .notFull }
        return nil
    }

    /// The id of the first class (by id) whose meetings overlap `target`'s; nil when none do.
    public static func firstConflict(of target: ClassSeats, with classes: [ClassSeats]) -> Int64? {
        classes
            .filter { $0.id != target.id && $0.term == target.term }
            .sorted { $0.id < $1.id }
            .first { target.meetings.conflicts(with: $0.meetings) }?
            .id
    }

    /// Whether a waitlisted student could be enrolled automatically (the `auto` policy):
    /// within the class limit and without a time conflict.
    public static func isEligibleForPromotion(target: ClassSeats, enrolledClasses: [ClassSeats], classLimit: Int) -> Bool {
        let others = enrolledClasses.filter { $0.id != target.id && $0.term == target.term }
        return others.count < classLimit && firstConflict(of: target, with: others) == nil
    }
}

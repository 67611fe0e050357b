public import Contracts
public import Foundation

/// Enrollments, waitlists and seat offers, behind a protocol: ``SQLiteEnrollmentStore`` on SQLite.
/// Every method runs inside the caller's transaction and only reads or writes Registration's
/// rows: the use case that takes or frees a seat moves the class's counters itself, in the same
/// transaction (``SeatChange``, ``SeatCounters``).
public protocol EnrollmentStoring: Sendable {
    func enrollments(of studentID: Int64, in transaction: any StoreTransaction) throws -> [Enrollment]
    func isEnrolled(studentID: Int64, classID: Int64, in transaction: any StoreTransaction) throws -> Bool
    /// Enrolls the student (the row only).
    func enroll(studentID: Int64, classID: Int64, at now: Date, in transaction: any StoreTransaction) throws
    /// Removes an enrollment; false when there was none.
    func drop(studentID: Int64, classID: Int64, in transaction: any StoreTransaction) throws -> Bool
    /// The student's waitlist places, positions counted among the gateway's entries.
    func waitlistPlaces(of studentID: Int64, in transaction: any StoreTransaction) throws -> [WaitlistPlace]
    func waitlistCount(of studentID: Int64, in transaction: any StoreTransaction) throws -> Int
    func isWaitlisted(studentID: Int64, classID: Int64, in transaction: any StoreTransaction) throws -> Bool
    /// Adds the student at the end of the line; returns their position.
    func joinWaitlist(studentID: Int64, classID: Int64, at now: Date, in transaction: any StoreTransaction) throws -> Int
    /// The class the student asked to drop when this class's seat comes to them; nil: none.
    func dropIfEnrolled(studentID: Int64, classID: Int64, in transaction: any StoreTransaction) throws -> Int64?
    /// Sets (or clears) that class on the student's place in the class's line.
    func setDropIfEnrolled(_ dropClassID: Int64?, studentID: Int64, classID: Int64, in transaction: any StoreTransaction) throws
    /// Takes the student out of the line; false when they were not in it.
    func leaveWaitlist(studentID: Int64, classID: Int64, in transaction: any StoreTransaction) throws -> Bool
    /// The class's line: student ids, first in line first.
    func line(of classID: Int64, in transaction: any StoreTransaction) throws -> [Int64]
    /// Which of these classes have anyone in line (an import asks of thousands at once).
    func classesWithLine(among ids: [Int64], in transaction: any StoreTransaction) throws -> Set<Int64>
    /// Everyone enrolled in, waitlisted for or holding an open offer for a class.
    func everyoneIn(classID: Int64, in transaction: any StoreTransaction) throws -> [Int64]
    func enrolledStudents(of classID: Int64, in transaction: any StoreTransaction) throws -> [(StudentProfile, Date)]
    func waitlistedStudents(of classID: Int64, in transaction: any StoreTransaction) throws -> [(StudentProfile, Date)]
    func openOffer(studentID: Int64, classID: Int64, in transaction: any StoreTransaction) throws -> SeatOffer?
    func openOffers(of studentID: Int64, in transaction: any StoreTransaction) throws -> [SeatOffer]
    func openOffers(ofClass classID: Int64, in transaction: any StoreTransaction) throws -> [SeatOffer]
    /// An offer and where it stands.
    func offer(id: Int64, in transaction: any StoreTransaction) throws -> (SeatOffer, SeatOfferStatus)?
    /// Open offers whose claim window has passed, optionally of one class.
    func dueOffers(classID: Int64?, now: Date, in transaction: any StoreTransaction) throws -> [SeatOffer]
    /// Opens an offer to a waitlisted student.
    func insertOffer(studentID: Int64, classID: Int64, now: Date, expiresAt: Date, in transaction: any StoreTransaction) throws -> SeatOffer
    /// Closes an open offer as claimed, declined or expired; false when it was not open.
    func closeOffer(id: Int64, as state: SeatOfferStatus, now: Date, in transaction: any StoreTransaction) throws -> Bool
    /// Removes every enrollment, waitlist entry and offer of a class being deleted.
    func removeClass(_ classID: Int64, in transaction: any StoreTransaction) throws
}

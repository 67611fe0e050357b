public import Contracts
public import Foundation
public import Catalog

/// An open offer of a held seat to a waitlisted student.
public struct SeatOffer: Sendable, Equatable, Codable {
    public var id: Int64
    public var classID: Int64
    public var studentID: Int64
    public var offeredAt: Date
    public var expiresAt: Date

    package init(id: Int64, classID: Int64, studentID: Int64, offeredAt: Date, expiresAt: Date) {
        self.id = id
        self.classID = classID
        self.studentID = studentID
        self.offeredAt = offeredAt
        self.expiresAt = expiresAt
    }
}

/// A student's place in one class's waitlist.
public struct WaitlistPlace: Sendable, Equatable, Codable {
    public var classID: Int64
    /// 1 for the first in line.
    public var position: Int
    public var joinedAt: Date
    /// The class the student drops when this one's seat comes to them (promotion or a claimed
    /// offer); nil: none.
    public var dropIfEnrolled: Int64?

    package init(classID: Int64, position: Int, joinedAt: Date, dropIfEnrolled: Int64? = nil) {
        self.classID = classID
        self.position = position
        self.joinedAt = joinedAt
        self.dropIfEnrolled = dropIfEnrolled
    }
}

/// An enrollment of a student in a class.
public struct Enrollment: Sendable, Equatable, Codable {
    public var classID: Int64
    public var enrolledAt: Date

    public init(classID: Int64, enrolledAt: Date) {
        self.classID = classID
        self.enrolledAt = enrolledAt
    }
}

/// Where an offer of a held seat stands, as stored: `open` until the student claims or
/// declines it, or its claim window closes (`expired`).
public enum SeatOfferStatus: String, Sendable, Codable, CaseIterable {
    case open, claimed, declined, expired
}

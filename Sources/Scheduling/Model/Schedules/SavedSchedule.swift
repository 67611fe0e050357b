public import Foundation

/// A schedule a student kept: a name, a term and the classes in it.
public struct SavedSchedule: Sendable, Equatable {
    public var id: Int64
    public var accountID: Int64
    public var name: String
    public var term: String
    public var classIDs: [Int64]
    public var createdAt: Date
    public var updatedAt: Date
    /// Who else sees it: nobody (the default), or the student's friends.
    public var visibility: ScheduleVisibility

    public init(
        id: Int64, accountID: Int64, name: String, term: String, classIDs: [Int64], createdAt: Date, updatedAt: Date,
        visibility: ScheduleVisibility = .private
    ) {
        self.visibility = visibility
        self.id = id
        self.accountID = accountID
        self.name = name
        self.term = term
        self.classIDs = classIDs
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The most schedules one student keeps, classes per schedule, and characters per name.
    public static let maximumPerStudent = 100
    public static let maximumClasses = 40
    public static let maximumNameLength = 100
}

/// Who sees a saved schedule besides its owner (and whoever holds one of its share links).
public enum ScheduleVisibility: String, Sendable, Codable, CaseIterable {
    case `private`
    case friends
}

/// How an exported calendar stands: what it last contained, since when, and how many times it
/// changed (the events' SEQUENCE).
public struct CalendarRevision: Sendable, Equatable {
    public var contentHash: String
    public var changedAt: Date
    public var sequence: Int

    public init(contentHash: String, changedAt: Date, sequence: Int) {
        self.contentHash = contentHash
        self.changedAt = changedAt
        self.sequence = sequence
    }
}

extension CalendarRevision {
    /// The revision after this one for a calendar whose content now hashes to `contentHash`:
    /// itself when nothing changed, otherwise the next sequence, changed at `now` (and always
    /// after the last change, so clients comparing times see it as newer).
    public func advanced(to contentHash: String, at now: Date) -> CalendarRevision {
        guard self.contentHash != contentHash else { return self }
        return CalendarRevision(contentHash: contentHash, changedAt: max(now, changedAt.addingTimeInterval(1)), sequence: sequence + 1)
    }
}

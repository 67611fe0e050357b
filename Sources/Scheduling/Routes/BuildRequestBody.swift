import Catalog
import Foundation
import GatewayHTTP

/// The JSON body of `POST /v1/scheduling/builds`, before its fields are checked.
struct BuildRequestBody: Decodable {
    struct CourseEntry: Decodable {
        let course: String
        let optional: Bool

        init(from decoder: any Decoder) throws {
            if let label = try? decoder.singleValueContainer().decode(String.self) {
                course = label
                optional = false
                return
            }
            let container = try decoder.container(keyedBy: Keys.self)
            course = try container.decode(String.self, forKey: .course)
            optional = try container.decodeIfPresent(Bool.self, forKey: .optional) ?? false
        }

        enum Keys: String, CodingKey { case course, optional }
    }

    struct Blocked: Decodable {
        let days: String
        let start: String?
        let end: String?
    }

    struct Weights: Decodable {
        let gpa: Double?
        let rating: Double?
        let gaps: Double?
        let days: Double?
        let laterStart: Double?
        let earlierEnd: Double?

        enum Keys: String, CodingKey { case gpa, rating, gaps, days, laterStart, earlierEnd }

        /// Each weight may be left out, never null.
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            gpa = try container.decodeUnlessAbsent(Double.self, forKey: .gpa)
            rating = try container.decodeUnlessAbsent(Double.self, forKey: .rating)
            gaps = try container.decodeUnlessAbsent(Double.self, forKey: .gaps)
            days = try container.decodeUnlessAbsent(Double.self, forKey: .days)
            laterStart = try container.decodeUnlessAbsent(Double.self, forKey: .laterStart)
            earlierEnd = try container.decodeUnlessAbsent(Double.self, forKey: .earlierEnd)
        }
    }

    let term: String
    let courses: [CourseEntry]
    let pinned: [Int64]?
    let excluded: [Int64]?
    let blocked: [Blocked]?
    let openSeatsOnly: Bool?
    /// Leave out sections the signed-in student may not register for (other than for seats).
    let eligibleOnly: Bool?
    /// Put first, among otherwise equal options, those shared most with friends.
    let withFriends: Bool?
    let minUnits: Double?
    let maxUnits: Double?
    let maxCourses: Int?
    let weights: Weights?
    let limit: Int?

    enum Keys: String, CodingKey {
        case term, courses, pinned, excluded, blocked, openSeatsOnly, eligibleOnly, withFriends, minUnits, maxUnits, maxCourses, weights, limit
    }

    /// The optional fields may be left out but are never null (the contract gives none of
    /// them a null): a null is refused naming the field, not read as the default.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        term = try container.decode(String.self, forKey: .term)
        courses = try container.decode([CourseEntry].self, forKey: .courses)
        pinned = try container.decodeUnlessAbsent([Int64].self, forKey: .pinned)
        excluded = try container.decodeUnlessAbsent([Int64].self, forKey: .excluded)
        blocked = try container.decodeUnlessAbsent([Blocked].self, forKey: .blocked)
        openSeatsOnly = try container.decodeUnlessAbsent(Bool.self, forKey: .openSeatsOnly)
        eligibleOnly = try container.decodeUnlessAbsent(Bool.self, forKey: .eligibleOnly)
        withFriends = try container.decodeUnlessAbsent(Bool.self, forKey: .withFriends)
        minUnits = try container.decodeUnlessAbsent(Double.self, forKey: .minUnits)
        maxUnits = try container.decodeUnlessAbsent(Double.self, forKey: .maxUnits)
        maxCourses = try container.decodeUnlessAbsent(Int.self, forKey: .maxCourses)
        weights = try container.decodeUnlessAbsent(Weights.self, forKey: .weights)
        limit = try container.decodeUnlessAbsent(Int.self, forKey: .limit)
    }

    /// The checked request; the first unusable field is named in the error.
    func checked() throws(SchedulingError) -> BuildRequest {
        let term = self.term.trimmingCharacters(in: .whitespaces)
        guard !term.isEmpty, term.count <= 40 else { throw .invalid(field: "term", message: "A term is 1 to 40 characters.") }
        guard !courses.isEmpty, courses.count <= BuildRequest.maximumCourses else {
            throw .invalid(field: "courses", message: "Ask for 1 to \(BuildRequest.maximumCourses) courses.")
        }
        var requested: [BuildRequest.RequestedCourse] = []
        for (index, entry) in courses.enumerated() {
            guard let label = CourseLabel(parsing: entry.course) else {
                throw .invalid(field: "courses[\(index)]", message: "'\(entry.course.prefix(40))' is not a course label like `CMSC 131`.")
            }
            requested.append(.init(label: label, optional: entry.optional, field: "courses[\(index)]"))
        }
        let pinned = self.pinned ?? [], excluded = self.excluded ?? []
        guard pinned.count <= BuildRequest.maximumClassIDs else { throw .invalid(field: "pinned", message: "At most \(BuildRequest.maximumClassIDs) classes.") }
        guard excluded.count <= BuildRequest.maximumClassIDs else { throw .invalid(field: "excluded", message: "At most \(BuildRequest.maximumClassIDs) classes.") }
        if let clash = pinned.firstIndex(where: excluded.contains) {
            throw .invalid(field: "pinned[\(clash)]", message: "Class \(pinned[clash]) is both pinned and excluded.")
        }
        let blockedEntries = blocked ?? []
        guard blockedEntries.count <= BuildRequest.maximumBlocked else {
            throw .invalid(field: "blocked", message: "At most \(BuildRequest.maximumBlocked) blocked times.")
        }
        var blockedTimes: [BlockedTime] = []
        for (index, entry) in blockedEntries.enumerated() {
            let field = "blocked[\(index)]"
            guard let days = Weekdays(parsing: entry.days), !days.isEmpty else {
                throw .invalid(field: "\(field).days", message: "'\(entry.days.prefix(20))' is not a set of days like `MWF`.")
            }
            switch (entry.start, entry.end) {
            case (nil, nil): blockedTimes.append(BlockedTime(days: days))
            case (let rawStart?, let rawEnd?):
                guard let start = TimeOfDay(parsing: rawStart), start.minutes < 1440 else {
                    throw .invalid(field: "\(field).start", message: "'\(rawStart.prefix(10))' is not a time like `1200`.")
                }
                guard let end = TimeOfDay(parsing: rawEnd) else {
                    throw .invalid(field: "\(field).end", message: "'\(rawEnd.prefix(10))' is not a time like `1300`.")
                }
                guard start < end else { throw .invalid(field: "\(field).end", message: "The end must be after the start.") }
                blockedTimes.append(BlockedTime(days: days, start: start, end: end))
            case (nil, _?): throw .invalid(field: "\(field).start", message: "Give both start and end, or neither for whole days.")
            case (_?, nil): throw .invalid(field: "\(field).end", message: "Give both start and end, or neither for whole days.")
            }
        }
        for (field, value) in [("minUnits", minUnits), ("maxUnits", maxUnits)] {
            if let value, !(value.isFinite && value >= 0 && value <= 100) {
                throw .invalid(field: field, message: "Units are a number from 0 to 100.")
            }
        }
        if let minUnits, let maxUnits, minUnits > maxUnits {
            throw .invalid(field: "maxUnits", message: "maxUnits is below minUnits.")
        }
        if let maxCourses, !(1...BuildRequest.maximumCourses).contains(maxCourses) {
            throw .invalid(field: "maxCourses", message: "maxCourses is 1 to \(BuildRequest.maximumCourses).")
        }
        let limit = self.limit ?? BuildRequest.defaultLimit
        guard (1...BuildRequest.maximumLimit).contains(limit) else {
            throw .invalid(field: "limit", message: "limit is 1 to \(BuildRequest.maximumLimit).")
        }
        var rankingWeights = RankingWeights()
        if let weights {
            let given: [(String, Double?, WritableKeyPath<RankingWeights, Double>)] = [
                ("gpa", weights.gpa, \.gpa), ("rating", weights.rating, \.rating), ("gaps", weights.gaps, \.gaps),
                ("days", weights.days, \.days), ("laterStart", weights.laterStart, \.laterStart), ("earlierEnd", weights.earlierEnd, \.earlierEnd),
            ]
            for (name, value, path) in given {
                guard let value else { continue }
                guard value.isFinite, (0...100).contains(value) else {
                    throw .invalid(field: "weights.\(name)", message: "A weight is a number from 0 to 100.")
                }
                rankingWeights[keyPath: path] = value
            }
        }
        return BuildRequest(
            term: term, courses: requested,
            constraints: BuildConstraints(
                pinned: pinned, excluded: excluded, blocked: blockedTimes, openSeatsOnly: openSeatsOnly ?? false,
                minUnits: minUnits, maxUnits: maxUnits, maxCourses: maxCourses
            ),
            weights: rankingWeights, limit: limit, eligibleOnly: eligibleOnly ?? false, withFriends: withFriends ?? false
        )
    }
}

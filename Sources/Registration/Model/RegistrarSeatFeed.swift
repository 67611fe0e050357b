public import Catalog
public import Foundation
import GatewayCore

/// One delivery of the registrar's seat feed, pushed to `POST /v1/registrar/seat-status` or
/// published at a term's `registrarFeedUrl`:
/// `{"term", "updates": [{"scheduleNumber", "seats", "enrolled", "waitlisted"?, "status", "asOf"}]}`.
public struct RegistrarSeatFeed: Sendable, Equatable {
    /// The term the updates are for.
    public var term: String
    public var updates: [RegistrarSeatUpdate]

    public init(term: String, updates: [RegistrarSeatUpdate]) {
        self.term = term
        self.updates = updates
    }

    /// The most updates one delivery may carry.
    public static let maximumUpdates = 5_000
    /// The largest body accepted, in bytes: 5,000 updates of generous size.
    public static let maximumBodyBytes = 2 << 20
}

/// The registrar's view of one section at one moment.
public struct RegistrarSeatUpdate: Sendable, Equatable {
    /// The registrar's section number (the CRN): the class's `scheduleNumber`.
    public var scheduleNumber: String
    public var seats: Int
    public var enrolled: Int
    /// The registrar's waitlist length, when it keeps one.
    public var waitlisted: Int?
    public var status: SectionStatus
    /// When the registrar's numbers were true; an update older than the one applied last is
    /// ignored.
    public var asOf: Date

    public init(scheduleNumber: String, seats: Int, enrolled: Int, waitlisted: Int? = nil, status: SectionStatus, asOf: Date) {
        self.scheduleNumber = scheduleNumber
        self.seats = seats
        self.enrolled = enrolled
        self.waitlisted = waitlisted
        self.status = status
        self.asOf = asOf
    }

    /// What the gateway's class row shows for this update: the registrar's seats and status,
    /// its enrolled count kept within the seats (a registrar may over-enroll a section by
    /// override; the class then has no open seat), and its waitlist when it reports one.
    public func mirrored(heldSeats: Int, currentWaitlist: Int) -> (seats: Int, enrolled: Int, waitlist: Int) {
        (seats, min(enrolled, max(0, seats - heldSeats)), waitlisted ?? currentWaitlist)
    }
}

/// Why a feed body was refused: the JSON pointer of the field and what is wrong with it.
public struct RegistrarFeedProblem: Error, Sendable, Equatable {
    public let pointer: String
    public let reason: String

    public init(pointer: String, reason: String) {
        self.pointer = pointer
        self.reason = reason
    }
}

extension RegistrarSeatFeed {
    /// Parses and checks a body; the first problem names its field (`/updates/3/seats`).
    public static func parse(_ body: Data) throws(RegistrarFeedProblem) -> RegistrarSeatFeed {
        guard body.count <= maximumBodyBytes else {
            throw RegistrarFeedProblem(pointer: "", reason: "the body is larger than \(maximumBodyBytes) bytes")
        }
        guard case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: body) else {
            throw RegistrarFeedProblem(pointer: "", reason: "the body is not a JSON object")
        }
        guard case .string(let term)? = object["term"], !term.isEmpty, term.utf8.count <= 40 else {
            throw RegistrarFeedProblem(pointer: "/term", reason: "must be a term id (1 to 40 characters)")
        }
        guard case .array(let rows)? = object["updates"] else {
            throw RegistrarFeedProblem(pointer: "/updates", reason: "must be an array")
        }
        guard rows.count <= maximumUpdates else {
            throw RegistrarFeedProblem(pointer: "/updates", reason: "at most \(maximumUpdates) updates per request")
        }
        var updates: [RegistrarSeatUpdate] = []
        updates.reserveCapacity(rows.count)
        for (index, row) in rows.enumerated() {
            updates.append(try update(row, at: "/updates/\(index)"))
        }
        return RegistrarSeatFeed(term: term, updates: updates)
    }

    static func update(_ value: JSONValue, at path: String) throws(RegistrarFeedProblem) -> RegistrarSeatUpdate {
        guard case .object(let row) = value else { throw RegistrarFeedProblem(pointer: path, reason: "must be an object") }
        guard case .string(let number)? = row["scheduleNumber"], !number.isEmpty, number.utf8.count <= 20 else {
            throw RegistrarFeedProblem(pointer: "\(path)/scheduleNumber", reason: "must be the section number (1 to 20 characters)")
        }
        let seats = try count(row["seats"], at: "\(path)/seats")
        let enrolled = try count(row["enrolled"], at: "\(path)/enrolled")
        var waitlisted: Int?
        if let value = row["waitlisted"], value != .null { waitlisted = try count(value, at: "\(path)/waitlisted") }
        guard case .string(let name)? = row["status"], let status = SectionStatus(name: name) else {
            throw RegistrarFeedProblem(pointer: "\(path)/status", reason: "must be open, closed or cancelled")
        }
        guard case .string(let text)? = row["asOf"], let asOf = Self.timestamp(text) else {
            throw RegistrarFeedProblem(pointer: "\(path)/asOf", reason: "must be an RFC 3339 date-time (2026-11-28T09:00:00Z)")
        }
        return RegistrarSeatUpdate(scheduleNumber: number, seats: seats, enrolled: enrolled, waitlisted: waitlisted, status: status, asOf: asOf)
    }

    /// A whole number of seats or students, within the catalog's bounds.
    static func count(_ value: JSONValue?, at pointer: String) throws(RegistrarFeedProblem) -> Int {
        guard case .int(let number)? = value, (0...Int64(ClassLimits.maximumSeats)).contains(number) else {
            throw RegistrarFeedProblem(pointer: pointer, reason: "must be a whole number from 0 to \(ClassLimits.maximumSeats)")
        }
        return Int(number)
    }

    /// RFC 3339 with or without fractional seconds.
    static func timestamp(_ text: String) -> Date? {
        guard text.utf8.count <= 40 else { return nil }
        if let date = try? Date(text, strategy: .iso8601) { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

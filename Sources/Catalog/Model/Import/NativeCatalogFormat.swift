public import Foundation
import GatewayCore

/// The gateway's own catalog format (documented in docs/registration.md): subjects, courses
/// and classes as three lists, with SDSU-style ids kept when given.
public enum NativeCatalogFormat {
    struct File: Decodable {
        let term: String?
        let subjects: [Lenient<SubjectRow>]?
        let courses: [Lenient<CourseRow>]?
        let classes: [Lenient<ClassRow>]?
    }

    struct SubjectRow: Decodable {
        let id: Int64?
        let code: String
        let title: String
        let college: String?
    }

    struct CourseRow: Decodable {
        let subject: String
        let number: LooseString
        let title: String
        let fullTitle: String?
        let description: String?
        let prerequisite: String?
        let units: LooseString?
        let requirements: JSONValue?
    }

    public struct MeetingRow: Decodable, Sendable {
        let days: String?
        let start: LooseString?
        let end: LooseString?
        let building: String?
        let room: String?
        let type: String?
    }

    public struct ClassRow: Decodable, Sendable {
        public let id: Int64?
        let term: String?
        let subject: String
        let course: LooseString
        let section: LooseString
        let scheduleNumber: LooseString
        let instructors: [String]?
        let instructor: String?
        let meetingType: String?
        let seats: Int
        let enrolled: Int?
        let waitlist: Int?
        let meetings: [MeetingRow]?
        /// `Lecture`, `Lab`, `Discussion`: what part of its course this section is.
        let component: String?
        /// Section codes of the same course and term this section goes with.
        let links: [LooseString]?
    }

    /// Parses a native catalog file. Throws only when the file as a whole is not one.
    public static func parse(_ data: Data) throws -> CatalogDocument {
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: data)
        } catch {
            throw CatalogFileError("not a native catalog file: \(error.localizedDescription)")
        }
        var document = CatalogDocument()
        for (index, item) in (file.subjects ?? []).enumerated() {
            let label = "subjects[\(index)]"
            switch item.value {
            case .failure(let error): document.rejected.append(RejectedRow(row: label, reason: error.reason))
            case .success(let row):
                let code = row.code.trimmingCharacters(in: .whitespaces).uppercased()
                guard !code.isEmpty, code.count <= 12 else {
                    document.rejected.append(RejectedRow(row: label, reason: "code must be 1 to 12 characters"))
                    continue
                }
                document.subjects.append(.init(label: label, id: row.id, code: code, title: row.title, college: row.college))
            }
        }
        for (index, item) in (file.courses ?? []).enumerated() {
            let label = "courses[\(index)]"
            switch item.value {
            case .failure(let error): document.rejected.append(RejectedRow(row: label, reason: error.reason))
            case .success(let row):
                guard let number = CourseNumber(parsing: row.number.value) else {
                    document.rejected.append(RejectedRow(row: label, reason: "course number '\(row.number.value)' is not a number with an optional suffix"))
                    continue
                }
                document.courses.append(.init(
                    label: label, subjectCode: row.subject.uppercased(), number: number, title: row.title,
                    fullTitle: row.fullTitle ?? row.title, description: row.description ?? "",
                    prerequisite: row.prerequisite ?? "", units: RowParsing.units(row.units?.value ?? ""),
                    requirements: row.requirements
                ))
            }
        }
        for (index, item) in (file.classes ?? []).enumerated() {
            let label = "classes[\(index)]"
            switch item.value.flatMap({ classRow($0, label: label, defaultTerm: file.term) }) {
            case .failure(let error): document.rejected.append(RejectedRow(row: label, reason: error.reason))
            case .success(let row): document.classes.append(row)
            }
        }
        return document
    }

    public static func classRow(_ row: ClassRow, label: String, defaultTerm: String?) -> Result<CatalogDocument.Class, RowError> {
        guard let term = row.term ?? defaultTerm, !term.isEmpty else { return .failure(RowError("no term (set 'term' on the class or the file)")) }
        guard let number = CourseNumber(parsing: row.course.value) else {
            return .failure(RowError("course number '\(row.course.value)' is not a number with an optional suffix"))
        }
        guard row.seats >= 0 else { return .failure(RowError("seats must not be negative")) }
        let enrolled = row.enrolled ?? 0, waitlist = row.waitlist ?? 0
        guard (0...row.seats).contains(enrolled) else { return .failure(RowError("enrolled (\(enrolled)) must be between 0 and seats (\(row.seats))")) }
        guard waitlist >= 0 else { return .failure(RowError("waitlist must not be negative")) }
        let schedule = row.scheduleNumber.value.trimmingCharacters(in: .whitespaces)
        guard !schedule.isEmpty else { return .failure(RowError("scheduleNumber is empty")) }
        var meetings: [Meeting] = []
        for (index, meeting) in (row.meetings ?? []).enumerated() {
            switch RowParsing.meeting(
                days: meeting.days ?? "", start: meeting.start?.value, end: meeting.end?.value,
                building: meeting.building ?? "", room: meeting.room ?? "", kind: meeting.type ?? ""
            ) {
            case .success(let parsed): meetings.append(parsed)
            case .failure(let error): return .failure(RowError("meetings[\(index)]: \(error.reason)"))
            }
        }
        let component = row.component?.trimmingCharacters(in: .whitespaces) ?? ""
        guard component.count <= ClassLimits.maximumComponentLength else {
            return .failure(RowError("component must be at most \(ClassLimits.maximumComponentLength) characters"))
        }
        let rawLinks = row.links ?? []
        guard rawLinks.count <= ClassLimits.maximumLinks else {
            return .failure(RowError("links may name at most \(ClassLimits.maximumLinks) sections"))
        }
        var links: [String] = []
        for (index, raw) in rawLinks.enumerated() {
            let link = raw.value.trimmingCharacters(in: .whitespaces)
            if let problem = ClassLimits.linkProblem(link) { return .failure(RowError("links[\(index)] \(problem)")) }
            if !links.contains(link) { links.append(link) }
        }
        return .success(.init(
            label: label, id: row.id, term: term, subjectCode: row.subject.uppercased(), courseNumber: number,
            scheduleNumber: schedule, section: row.section.value, instructors: row.instructors ?? row.instructor.map { [$0] } ?? [],
            meetingType: row.meetingType ?? meetings.first(where: { !$0.kind.isEmpty })?.kind ?? "Lecture",
            seats: row.seats, enrolled: enrolled, waitlist: waitlist, meetings: meetings, component: component, links: links
        ))
    }
}

/// The file is not in the expected format at all.
public struct CatalogFileError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

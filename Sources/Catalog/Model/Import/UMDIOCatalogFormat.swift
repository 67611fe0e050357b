public import Foundation

/// The umd.io course format (`GET /v1/courses?expand=sections`): an array of courses, each
/// with its sections and their meetings. Everything is a string: seats `"20"`, days `"TuWTh"`,
/// times `"10:00am"`; online sections have empty days and times.
///
/// Mapping: a subject per `dept_id`; a course per `course_id` (`AASP498E` is number 498,
/// suffix E); a class per section, whose schedule number is its `section_id`
/// (`AASP100-0201`), so re-imports find it again. Enrolled is `seats - open_seats`.
public enum UMDIOCatalogFormat {
    struct Course: Decodable {
        let course_id: String
        let semester: String
        let name: String
        let dept_id: String
        let department: String
        let credits: LooseString?
        let description: String?
        let relationships: Relationships?
        let sections: [Lenient<Section>]?
    }

    struct Relationships: Decodable {
        let prereqs: String?
    }

    struct Section: Decodable {
        let section_id: String
        let number: String
        let seats: LooseString
        let open_seats: LooseString
        let waitlist: LooseString?
        let instructors: [String]?
        let meetings: [MeetingRow]?
    }

    struct MeetingRow: Decodable {
        let days: String?
        let room: String?
        let building: String?
        let classtype: String?
        let start_time: String?
        let end_time: String?
    }

    /// Parses a umd.io file. New subjects get `college`; existing ones keep theirs.
    public static func parse(_ data: Data, college: String? = nil) throws -> CatalogDocument {
        let courses: [Lenient<Course>]
        do {
            courses = try JSONDecoder().decode([Lenient<Course>].self, from: data)
        } catch {
            throw CatalogFileError("not a umd.io course list (a JSON array of courses): \(error.localizedDescription)")
        }
        var document = CatalogDocument()
        var subjects: Set<String> = []
        for (index, item) in courses.enumerated() {
            guard case .success(let course) = item.value else {
                if case .failure(let error) = item.value { document.rejected.append(RejectedRow(row: "[\(index)]", reason: error.reason)) }
                continue
            }
            let code = course.dept_id.uppercased()
            guard !code.isEmpty, course.course_id.uppercased().hasPrefix(code),
                let number = CourseNumber(parsing: String(course.course_id.dropFirst(code.count)))
            else {
                document.rejected.append(RejectedRow(row: course.course_id, reason: "course_id does not start with dept_id and a course number"))
                continue
            }
            if subjects.insert(code).inserted {
                document.subjects.append(.init(label: code, code: code, title: course.department, college: college))
            }
            document.courses.append(.init(
                label: course.course_id, subjectCode: code, number: number, title: course.name, fullTitle: course.name,
                description: course.description ?? "", prerequisite: course.relationships?.prereqs ?? "",
                units: RowParsing.units(course.credits?.value ?? "")
            ))
            for (sectionIndex, sectionItem) in (course.sections ?? []).enumerated() {
                switch sectionItem.value.flatMap({ classRow($0, course: course, code: code, number: number) }) {
                case .success(let row): document.classes.append(row)
                case .failure(let error):
                    document.rejected.append(RejectedRow(row: "\(course.course_id).sections[\(sectionIndex)]", reason: error.reason))
                }
            }
        }
        return document
    }

    static func classRow(_ section: Section, course: Course, code: String, number: CourseNumber) -> Result<CatalogDocument.Class, RowError> {
        guard let seats = Int(section.seats.value), seats >= 0 else { return .failure(RowError("seats '\(section.seats.value)' is not a count")) }
        guard let open = Int(section.open_seats.value), (0...seats).contains(open) else {
            return .failure(RowError("open_seats '\(section.open_seats.value)' is not between 0 and seats (\(seats))"))
        }
        let waitlistText = section.waitlist?.value ?? "0"
        guard let waitlist = Int(waitlistText), waitlist >= 0 else { return .failure(RowError("waitlist '\(waitlistText)' is not a count")) }
        var meetings: [Meeting] = []
        for (index, row) in (section.meetings ?? []).enumerated() {
            let kind = row.classtype ?? ""
            switch RowParsing.meeting(
                days: row.days ?? "", start: row.start_time, end: row.end_time, building: row.building ?? "",
                room: row.room ?? "", kind: kind.isEmpty ? "Lecture" : kind
            ) {
            case .success(let meeting): if !meetings.contains(meeting) { meetings.append(meeting) }
            case .failure(let error): return .failure(RowError("meetings[\(index)]: \(error.reason)"))
            }
        }
        return .success(.init(
            label: section.section_id, term: course.semester, subjectCode: code, courseNumber: number,
            scheduleNumber: section.section_id, section: section.number, instructors: section.instructors ?? [],
            meetingType: meetings.first?.kind ?? "Lecture", seats: seats, enrolled: seats - open, waitlist: waitlist,
            meetings: meetings
        ))
    }
}

import Catalog
@testable import Scheduling

/// Small hand-made courses for the builder's tests.
enum BuilderFixtures {
    static func meeting(_ days: String, _ start: String, _ end: String) -> Meeting {
        Meeting(days: Weekdays(parsing: days)!, start: TimeOfDay(parsing: start)!, end: TimeOfDay(parsing: end)!)
    }

    static func section(
        _ id: Int64, _ days: String, _ start: String, _ end: String, instructor: String = "Staff", open: Int = 10,
        component: String = "", links: [String] = [], code: String? = nil
    ) -> SectionOption {
        SectionOption(
            classID: id, section: code ?? String(id), component: component, links: links, instructors: [instructor],
            meetings: [meeting(days, start, end)], openSeats: open
        )
    }

    static func tba(_ id: Int64, instructor: String = "Staff") -> SectionOption {
        SectionOption(classID: id, section: String(id), instructors: [instructor], meetings: [.tba()], openSeats: 10)
    }

    static func course(_ label: String, units: Double = 3, optional: Bool = false, gpa: Double? = nil, _ sections: [SectionOption]) -> CourseOptions {
        CourseOptions(label: label, optional: optional, units: units, averageGPA: gpa, sections: sections)
    }
}

import Catalog

/// A small catalog document for tests that need their own classes.
enum TestCatalog {
    static func document(term: String = "t1") -> CatalogDocument {
        func meeting(_ days: String, _ start: String, _ end: String) -> Meeting {
            Meeting(days: Weekdays(parsing: days)!, start: TimeOfDay(parsing: start), end: TimeOfDay(parsing: end), building: "B", room: "1")
        }
        return CatalogDocument(
            subjects: [
                .init(label: "s0", id: 100, code: "PHYS", title: "Physics", college: "Science"),
                .init(label: "s1", id: 101, code: "ENGL", title: "English", college: "Arts and Letters"),
            ],
            courses: [
                .init(label: "c0", subjectCode: "PHYS", number: CourseNumber(number: 195), title: "PRINCIPLES OF PHYSICS", fullTitle: "Principles of Physics", description: "Mechanics and waves with laboratory.", prerequisite: "", units: "4.0"),
                .init(label: "c1", subjectCode: "PHYS", number: CourseNumber(number: 610), title: "QUANTUM MECHANICS", fullTitle: "Quantum Mechanics", description: "Hilbert spaces and operators.", prerequisite: "Graduate standing.", units: "3.0"),
                .init(label: "c2", subjectCode: "ENGL", number: CourseNumber(number: 220), title: "INTRO TO LITERATURE", fullTitle: "Introduction to Literature", description: "Reading fiction, poetry and drama.", prerequisite: "", units: "3.0"),
            ],
            classes: [
                .init(label: "k0", id: 501, term: term, subjectCode: "PHYS", courseNumber: CourseNumber(number: 195), scheduleNumber: "90001", section: "01", instructors: ["M. CURIE"], meetingType: "Lecture", seats: 30, enrolled: 5, meetings: [meeting("MWF", "0900", "0950"), meeting("F", "1300", "1550")]),
                .init(label: "k1", id: 502, term: term, subjectCode: "PHYS", courseNumber: CourseNumber(number: 610), scheduleNumber: "90002", section: "01", instructors: ["P. DIRAC", "W. PAULI"], meetingType: "Seminar", seats: 10, enrolled: 10, meetings: [meeting("TTH", "1730", "1845")]),
                .init(label: "k2", id: 503, term: term, subjectCode: "ENGL", courseNumber: CourseNumber(number: 220), scheduleNumber: "90003", section: "01", instructors: ["V. WOOLF"], meetingType: "Lecture", seats: 40, enrolled: 0, meetings: [meeting("TTH", "0930", "1045")]),
                .init(label: "k3", id: 504, term: term, subjectCode: "ENGL", courseNumber: CourseNumber(number: 220), scheduleNumber: "90004", section: "02", instructors: ["STAFF"], meetingType: "Lecture", seats: 40, enrolled: 1, meetings: [.tba(building: "ONLINE")]),
            ]
        )
    }
}

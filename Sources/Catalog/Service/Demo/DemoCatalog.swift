import Foundation

/// The demo catalog: seed 000's fixtures (Astronomy and Computer Science) plus generated
/// classes for 108 more SDSU-like subjects, with realistic meeting patterns (MWF 50-minute,
/// MW/TTH 75-minute, evening, labs, TBA and online), deterministic from a fixed seed.
public enum DemoCatalog {
    public enum Size: Sendable {
        /// Every subject: over 4,000 classes.
        case full
        /// Only the fixtures (Astronomy and Computer Science): fast, for tests.
        case fixtures
    }

    public static let term = DemoFixtures.term
    static let seed: UInt64 = 0x5D50_2018_0646
    static let astronomyClassCount = 33

    /// The catalog as a document for the importer.
    public static func document(size: Size = .full) -> CatalogDocument {
        var generator = SeededGenerator(seed: seed)
        var document = CatalogDocument()
        var schedule = 30_000
        for (index, subject) in DemoSubjects.all.enumerated() {
            let id = Int64(index + 1)
            if size == .fixtures, subject.code != "ASTR", subject.code != "CS" { continue }
            document.subjects.append(.init(label: subject.code, id: id, code: subject.code, title: subject.title, college: subject.college))
            if subject.code == DemoFixtures.subjectCode {
                addFixtures(to: &document)
                continue
            }
            let target = subject.code == "ASTR" ? astronomyClassCount : generator.int(34...46)
            var writer = SubjectWriter(
                subjectID: id, code: subject.code, title: subject.title,
                buildings: DemoSubjects.buildings[subject.college] ?? ["AH"], generator: generator, schedule: schedule
            )
            writer.write(classes: target, into: &document)
            generator = writer.generator
            schedule = writer.schedule
        }
        return document
    }

    static func addFixtures(to document: inout CatalogDocument) {
        let code = DemoFixtures.subjectCode
        for course in DemoFixtures.courses {
            document.courses.append(.init(
                label: "\(code) \(course.number)", subjectCode: code, number: CourseNumber(parsing: course.number)!,
                title: course.title, fullTitle: course.fullTitle, description: course.description,
                prerequisite: course.prerequisite, units: course.units
            ))
        }
        for item in DemoFixtures.classes {
            let meetings = item.meetings.map(fixtureMeeting)
            document.classes.append(.init(
                label: "class \(item.id)", id: item.id, term: DemoFixtures.term, subjectCode: code,
                courseNumber: CourseNumber(parsing: item.course)!, scheduleNumber: DemoFixtures.scheduleNumber(of: item.id),
                section: item.section, instructors: [item.instructor],
                meetingType: meetings.first.map { $0.kind.isEmpty ? "Lecture" : $0.kind } ?? "Lecture",
                seats: item.seats, enrolled: item.enrolled, meetings: meetings
            ))
        }
    }

    /// "TTH 1900 2015 GMCS 425 Lecture", "TBA" or "ONLINE".
    static func fixtureMeeting(_ text: String) -> Meeting {
        let parts = text.split(separator: " ").map(String.init)
        switch parts.first {
        case "TBA": return .tba(kind: "Supervision")
        case "ONLINE": return .tba(building: "ONLINE", kind: "Lecture")
        default:
            return Meeting(
                days: Weekdays(parsing: parts[0])!, start: TimeOfDay(parsing: parts[1]), end: TimeOfDay(parsing: parts[2]),
                building: parts[3], room: parts[4], kind: parts[5]
            )
        }
    }
}

/// Generates one subject's courses and classes.
struct SubjectWriter {
    let subjectID: Int64
    let code: String
    let title: String
    let buildings: [String]
    var generator: SeededGenerator
    var schedule: Int
    private var nextClassID: Int64

    init(subjectID: Int64, code: String, title: String, buildings: [String], generator: SeededGenerator, schedule: Int) {
        self.subjectID = subjectID
        self.code = code
        self.title = title
        self.buildings = buildings
        self.generator = generator
        self.schedule = schedule
        nextClassID = 10_000 + subjectID * 100
    }

    static let lowerTitles = [
        "Introduction to %", "Principles of %", "Foundations of %", "Elementary %", "Survey of %", "% and Society",
        "Intermediate %", "Quantitative Methods in %", "Writing in %", "% in the Modern World",
    ]
    static let upperTitles = [
        "Topics in %", "Advanced %", "History of %", "Theory of %", "Research Methods in %", "% in Practice",
        "Contemporary Issues in %", "Applied %", "Analysis in %", "Field Studies in %", "Professional Practice in %",
    ]
    static let graduateTitles = [
        "Seminar in %", "Advanced Topics in %", "Problems in %", "Proseminar in %", "Graduate Studies in %",
    ]
    static let themes = [
        "history", "theory", "methods", "ethics", "data", "policy", "culture", "design", "communities", "technology",
        "the environment", "health", "globalization", "language", "research", "practice", "systems", "evidence",
    ]

    mutating func write(classes target: Int, into document: inout CatalogDocument) {
        var written = 0
        var usedNumbers: Set<Int> = []
        // Roughly 40% lower division, 40% upper, 20% graduate; independent study and thesis last.
        while written < target {
            let remaining = target - written
            let band = written < target * 2 / 5 ? 0 : (written < target * 4 / 5 ? 1 : 2)
            var number: Int
            repeat {
                number = band == 0 ? generator.int(100...299) : band == 1 ? generator.int(300...499) : generator.int(500...799)
            } while usedNumbers.contains(number) || [497, 498, 499, 797, 798, 799].contains(number)
            usedNumbers.insert(number)
            let sections = min(remaining, band == 0 ? generator.int(1...4) : generator.int(1...2))
            writeCourse(number: number, band: band, sections: sections, into: &document)
            written += sections
        }
    }

    mutating func writeCourse(number: Int, band: Int, sections: Int, into document: inout CatalogDocument) {
        let templates = band == 0 ? Self.lowerTitles : band == 1 ? Self.upperTitles : Self.graduateTitles
        let fullTitle = generator.pick(templates).replacingOccurrences(of: "%", with: title)
        let hasLab = band < 2 && generator.chance(0.12)
        let units = hasLab ? "4.0" : generator.chance(0.1) ? "1.0" : "3.0"
        let theme = generator.pick(Self.themes), theme2 = generator.pick(Self.themes)
        let prerequisite = band == 0 ? (generator.chance(0.3) ? "\(title) \(max(100, number - generator.int(1...60)))." : "")
            : band == 1 ? "\(title) \(generator.int(100...299)) or consent of instructor." : "Graduate standing."
        document.courses.append(.init(
            label: "\(code) \(number)", subjectCode: code, number: CourseNumber(number: number),
            title: Self.shortTitle(fullTitle), fullTitle: fullTitle,
            description: "\(fullTitle) with emphasis on \(theme) and \(theme2). Readings, discussion and projects.",
            prerequisite: prerequisite, units: units
        ))
        for section in 1...sections {
            let meetings = meetingPattern(band: band, hasLab: hasLab)
            let kind = meetings.first?.kind ?? "Lecture"
            let seats = kind == "Laboratory" ? generator.int(4...6) * 4 : kind == "Seminar" ? generator.int(12...25)
                : band == 2 ? generator.int(4...8) * 5 : generator.int(5...30) * 5
            let full = generator.chance(0.08)
            let enrolled = full ? seats : generator.int(0...seats)
            schedule += 1
            document.classes.append(.init(
                label: "\(code) \(number)-\(section)", id: nextClassID, term: DemoCatalog.term, subjectCode: code,
                courseNumber: CourseNumber(number: number), scheduleNumber: String(schedule),
                section: section < 10 ? "0\(section)" : "\(section)", instructors: [instructor()], meetingType: kind,
                seats: seats, enrolled: enrolled, meetings: meetings
            ))
            nextClassID += 1
        }
    }

    /// A realistic weekly pattern.
    mutating func meetingPattern(band: Int, hasLab: Bool) -> [Meeting] {
        let building = generator.pick(buildings)
        let room = String(generator.int(1...4) * 100 + generator.int(1...40))
        func at(_ days: String, _ start: Int, _ length: Int, _ kind: String, _ place: String? = nil) -> Meeting {
            Meeting(
                days: Weekdays(parsing: days)!, start: TimeOfDay(minutes: start), end: TimeOfDay(minutes: start + length),
                building: place ?? building, room: room, kind: kind
            )
        }
        let roll = generator.int(0...99)
        var meetings: [Meeting]
        switch roll {
        case 0..<30: meetings = [at("MWF", (generator.int(7...15)) * 60, 50, "Lecture")]
        case 30..<52: meetings = [at("TTH", generator.pick([480, 570, 660, 750, 840, 930, 1020]), 75, "Lecture")]
        case 52..<66: meetings = [at("MW", generator.pick([480, 570, 660, 750, 840, 930, 1020]), 75, "Lecture")]
        case 66..<76:
            let evening = generator.pick([(1050, 75), (1140, 75), (1140, 160), (1080, 160)])
            let days = evening.1 > 100 ? generator.pick(["M", "T", "W", "TH"]) : generator.pick(["MW", "TTH"])
            meetings = [at(days, evening.0, evening.1, band == 2 ? "Seminar" : "Lecture")]
        case 76..<82: meetings = [at(generator.pick(["M", "T", "W", "TH", "F"]), generator.pick([480, 660, 840]), 170, "Laboratory")]
        case 82..<88: meetings = [at(generator.pick(["W", "TH", "T"]), generator.pick([840, 960]), 160, "Seminar")]
        case 88..<95: meetings = [.tba(building: "ONLINE", kind: "Lecture")]
        default: meetings = [.tba(kind: "Supervision")]
        }
        if hasLab, meetings[0].isScheduled {
            meetings.append(at(generator.pick(["T", "W", "TH", "F"]), generator.pick([480, 660, 840]), 170, "Laboratory"))
            if meetings[0].overlaps(meetings[1]) { meetings.removeLast() }
        }
        return meetings
    }

    mutating func instructor() -> String {
        if generator.chance(0.06) { return "STAFF" }
        let initial = Character(UnicodeScalar(UInt8(65 + generator.int(0...25))))
        return "\(initial). \(generator.pick(DemoSubjects.instructorSurnames))"
    }

    /// SDSU-style catalog titles: upper case, common words abbreviated, at most 24 characters.
    static func shortTitle(_ full: String) -> String {
        var text = full.uppercased()
        for (long, short) in [
            ("INTRODUCTION TO", "INTRO"), ("PRINCIPLES OF", "PRIN"), ("FOUNDATIONS OF", "FOUND"), ("ADVANCED", "ADV"),
            ("CONTEMPORARY", "CONTEMP"), ("PROFESSIONAL", "PROF"), ("RESEARCH METHODS", "RSRCH MTHDS"),
            ("QUANTITATIVE", "QUANT"), ("ENGINEERING", "ENGR"), ("MANAGEMENT", "MGMT"), (" AND ", " & "),
            ("EDUCATION", "EDUC"), ("STUDIES", "STDS"), ("SCIENCES", "SCI"), ("SCIENCE", "SCI"),
        ] {
            text = text.replacingOccurrences(of: long, with: short)
        }
        return String(text.prefix(24)).trimmingCharacters(in: .whitespaces)
    }
}

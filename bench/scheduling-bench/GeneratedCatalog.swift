import Catalog
import Foundation
import Scheduling

// MARK: - A generated catalog

/// A fall-semester-like catalog made up from a seed, to measure the builder on a catalog it
/// was never tuned on (`--selections generated`): courses `GEN 100` on, each one of
/// - lecture sections only (6–14): MWF 50 minutes on the hour from 8:00 to 16:00, or TTh / MW
///   75 minutes from 8:00 to 17:00 on the 90-minute grid;
/// - 2–3 lectures, each with 3–6 discussions (one weekday, 50 minutes, 8:00 to 17:00) that
///   link to it, so a candidate is a lecture and one of its discussions;
/// - 1–2 lectures and 3–6 labs (one weekday, 110 minutes, at 8:00, 11:00 or 14:00), any
///   lab with any lecture.
/// Instructors come from four per course (out of 40), so equal ratings and equal week shapes
/// make ties. Units are 3, or 4 with labs. The rating book rates them like the umd.io one
/// (`generatedBook`).
enum GeneratedCatalog {
    static func courses(count: Int, seed: UInt64 = 2026) -> [CourseOptions] {
        var random = Random(state: seed)
        var id: Int64 = 1_000_000
        let hourly = Array(stride(from: 480, through: 960, by: 60))
        let ninety = Array(stride(from: 480, through: 1020, by: 90))
        func lecture(_ random: inout Random) -> Meeting {
            switch random.next(3) {
            case 0: return meeting("MWF", hourly[random.next(hourly.count)], 50)
            case 1: return meeting("TTh", ninety[random.next(ninety.count)], 75)
            default: return meeting("MW", ninety[random.next(ninety.count)], 75)
            }
        }
        let weekdays = ["M", "T", "W", "Th", "F"]
        return (0..<count).map { index in
            let staff = (0..<4).map { _ in "Prof \(random.next(40))" }
            var sections: [SectionOption] = []
            func add(_ code: String, _ component: String, _ meetingsOf: Meeting, links: [String] = []) {
                sections.append(SectionOption(
                    classID: id, section: code, component: component, links: links, instructors: [staff[random.next(staff.count)]],
                    meetings: [meetingsOf], openSeats: 5 + random.next(30)
                ))
                id += 1
            }
            let kind = random.next(10)
            if kind < 4 {
                for number in 0..<(6 + random.next(9)) { add(String(format: "%04d", 101 + number), "", lecture(&random)) }
            } else if kind < 7 {
                for lectureNumber in 0..<(2 + random.next(2)) {
                    let code = String(format: "%02d00", lectureNumber + 1)
                    add(code, "Lecture", lecture(&random))
                    for number in 0..<(3 + random.next(4)) {
                        let day = weekdays[random.next(weekdays.count)]
                        add(String(format: "%02d%02d", lectureNumber + 1, number + 1), "Discussion",
                            meeting(day, 480 + 60 * random.next(10), 50), links: [code])
                    }
                }
            } else {
                for number in 0..<(1 + random.next(2)) { add(String(format: "%04d", 101 + number), "Lecture", lecture(&random)) }
                for number in 0..<(3 + random.next(4)) {
                    add(String(format: "L%03d", number + 1), "Lab", meeting(weekdays[random.next(weekdays.count)], [480, 660, 840][random.next(3)], 110))
                }
            }
            return CourseOptions(label: "GEN \(100 + index)", units: kind >= 7 ? 4 : 3, sections: sections)
        }
    }

    static func meeting(_ days: String, _ start: Int, _ length: Int) -> Meeting {
        Meeting(days: Weekdays(parsing: days)!, start: TimeOfDay(minutes: start), end: TimeOfDay(minutes: start + length))
    }

    /// splitmix64.
    struct Random {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &+ 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }
}

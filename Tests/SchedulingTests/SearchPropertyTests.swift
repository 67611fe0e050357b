import Catalog
import PropertyBased
import Testing
@testable import Scheduling

/// The search against a naive enumeration on random small catalogs: the same count and the
/// same best score, whatever the meetings, components and links.
@Suite struct SearchPropertyTests {
    /// A random catalog of 1–4 courses, each with up to 4 sections; some courses have a lecture
    /// and lab component, some labs link to a lecture.
    static let catalogs = Gen.int(in: 0...Int(Int32.max)).map { seed in RandomCatalog(seed: UInt64(seed)).courses }

    @Test func searchAgreesWithNaiveEnumeration() async {
        await propertyCheck(count: 150, input: Self.catalogs) { courses in
            let ratings = RatingBook(courseGPAs: ["C 1": 3.2, "C 2": 2.1], instructorRatings: ["I0": 4.5, "I1": 2.0, "I2": 3.3])
            let builder = ScheduleBuilder(ratings: ratings)
            let outcome = builder.build(courses: courses, constraints: BuildConstraints(), limit: 5)
            let naive = NaiveSearch(courses: courses, ratings: ratings, weights: RankingWeights())
            #expect(outcome.countIsExact)
            #expect(outcome.count == naive.count, "count for \(courses.map(\.label))")
            if naive.count > 0 {
                #expect(outcome.schedules.first?.score == naive.bestScore?.points)
            } else {
                #expect(outcome.schedules.isEmpty)
                #expect(outcome.explanation != nil)
            }
        }
    }
}

/// A seeded generator of small catalogs (splitmix64).
struct RandomCatalog {
    var state: UInt64

    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }

    mutating func next(_ bound: Int) -> Int {
        state = state &+ 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }

    var courses: [CourseOptions] {
        var copy = self
        return copy.make()
    }

    private mutating func make() -> [CourseOptions] {
        let dayChoices = ["MWF", "TTh", "MW", "F", "T", "M"]
        var id: Int64 = 1
        return (0..<(1 + next(4))).map { index in
            let components = next(3) == 0 ? ["Lecture", "Lab"] : [""]
            var sections: [SectionOption] = []
            for component in components {
                for number in 0..<(1 + next(3)) {
                    let start = 480 + next(24) * 30
                    let length = [50, 75, 110][next(3)]
                    let code = component == "Lab" ? "L\(number)" : "S\(number)"
                    let links = component == "Lab" && next(2) == 0 ? ["S\(next(2))"] : []
                    let meeting = next(6) == 0
                        ? Meeting.tba()
                        : Meeting(days: Weekdays(parsing: dayChoices[next(dayChoices.count)])!, start: TimeOfDay(minutes: start), end: TimeOfDay(minutes: start + length))
                    sections.append(SectionOption(
                        classID: id, section: code, component: component, links: links, instructors: ["I\(next(4))"],
                        meetings: [meeting], openSeats: 5
                    ))
                    id += 1
                }
            }
            return CourseOptions(label: "C \(index)", units: Double(1 + next(4)), sections: sections)
        }
    }
}

/// Every combination, checked meeting by meeting: the reference the search must match.
struct NaiveSearch {
    var count = 0
    var bestScore: Int64?

    init(courses: [CourseOptions], ratings: RatingBook, weights: RankingWeights) {
        let ranking = Ranking(weights: weights, referenceUnits: courses.map(\.units).reduce(0, +))
        let options = courses.map { Self.ways(of: $0) }
        var chosen: [(CourseOptions, [SectionOption])] = []
        func visit(_ depth: Int) {
            if depth == courses.count {
                count += 1
                let meetings = chosen.flatMap { $0.1.flatMap(\.meetings) }
                var score: Int64 = 0
                for (course, sections) in chosen {
                    let gpa = course.averageGPA ?? ratings.gpa(course: course.label).value
                    var names: [String] = []
                    for name in sections.flatMap(\.instructors) where !names.contains(name) { names.append(name) }
                    score += ranking.gpaPoints(units: course.units, gpa: gpa)
                    score += ranking.ratingPoints(units: course.units, rating: ratings.rating(instructors: names).value)
                }
                score += ranking.shapePoints(Self.shape(meetings)).total
                bestScore = max(bestScore ?? score, score)
                return
            }
            for way in options[depth] {
                let taken = chosen.flatMap { $0.1.flatMap(\.meetings) }
                guard !way.flatMap(\.meetings).conflicts(with: taken) else { continue }
                chosen.append((courses[depth], way))
                visit(depth + 1)
                chosen.removeLast()
            }
        }
        visit(0)
    }

    /// One section of each component, not overlapping each other, links honoured.
    static func ways(of course: CourseOptions) -> [[SectionOption]] {
        var names: [String] = []
        for section in course.sections.sorted(by: { $0.classID < $1.classID }) where !names.contains(section.component) {
            names.append(section.component)
        }
        var ways: [[SectionOption]] = [[]]
        for name in names {
            ways = ways.flatMap { way in
                course.sections.filter { $0.component == name }.compactMap { section in
                    way.flatMap(\.meetings).conflicts(with: section.meetings) ? nil : way + [section]
                }
            }
        }
        return ways.filter { way in
            way.allSatisfy { section in
                section.links.isEmpty || way.contains { $0.classID != section.classID && section.links.contains($0.section) }
            }
        }
    }

    /// Days, first start, last end and idle minutes, from the meetings themselves.
    static func shape(_ meetings: [Meeting]) -> WeekShape {
        var shape = WeekShape()
        for day in Weekdays.ordered {
            let today = meetings.filter { $0.isScheduled && $0.days.contains(day) }
            guard let first = today.compactMap(\.start).min(), let last = today.compactMap(\.end).max() else { continue }
            shape.days += 1
            shape.earliestStart = min(shape.earliestStart ?? first.minutes, first.minutes)
            shape.latestEnd = max(shape.latestEnd ?? last.minutes, last.minutes)
            let busy = today.reduce(0) { $0 + ($1.end!.minutes - $1.start!.minutes) }
            shape.gapMinutes += last.minutes - first.minutes - busy
        }
        return shape
    }
}

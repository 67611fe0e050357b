import Catalog
import Foundation
import Scheduling

// MARK: - Answers, for comparing two builds of the builder

/// `--verify FILE`: builds a fixed set of requests and writes every outcome in full (Swift's
/// `dump`, one case after another) to FILE, then prints a digest of the file. Two builds of the
/// builder give the same answers when their files (and digests) are the same: run it before and
/// after a change to the search and `diff` the files.
///
/// The cases, all seeded, so every run builds the same requests: the benchmark's own selections
/// (5 and 8 of the most sections; 2 to 10 of the most timed sections; 2 to 10 generated
/// courses, limits 1 and 20), then random requests of 2
/// to 10 courses drawn from the 80 courses with the most timed sections (where conflicts and
/// ties happen), with or without the synthetic ratings, limits of 1 to 50, and sometimes
/// optional courses with `maxCourses`, unit limits, blocked times, open seats only, excluded
/// classes or other ranking weights.
struct Verification {
    let courses: [CourseOptions]
    let ratings: RatingBook
    /// The generated catalog and its rating book.
    let generated: [CourseOptions]
    let generatedRatings: RatingBook
    var random = GeneratedCatalog.Random(state: 0x5EED_0F_B1D)

    mutating func next(_ bound: Int) -> Int { random.next(bound) }

    struct Case {
        var name: String
        var courses: [CourseOptions]
        var ratings: RatingBook
        var weights = RankingWeights()
        var constraints = BuildConstraints()
        var limit = 20
    }

    mutating func cases(randomCount: Int) -> [Case] {
        func top(_ count: Int, by key: (CourseOptions) -> Int) -> [CourseOptions] {
            Array(courses.sorted { a, b in
                let ka = key(a), kb = key(b)
                return ka != kb ? ka > kb : a.label < b.label
            }.prefix(count))
        }
        let timed = { (course: CourseOptions) in course.sections.filter { $0.meetings.contains(where: \.isScheduled) }.count }
        var result: [Case] = []
        for book in [("none", RatingBook()), ("synthetic", ratings)] {
            for size in [5, 8] {
                result.append(Case(name: "most sections \(size) \(book.0)", courses: top(size, by: { $0.sections.count }), ratings: book.1))
            }
            for size in 2...10 {
                result.append(Case(name: "most timed sections \(size) \(book.0)", courses: top(size, by: timed), ratings: book.1))
            }
        }
        for size in 2...10 {
            for book in [("none", RatingBook()), ("synthetic", generatedRatings)] {
                for limit in [1, 20] {
                    result.append(Case(name: "generated \(size) \(book.0)", courses: Array(generated.prefix(size)), ratings: book.1, limit: limit))
                }
            }
        }
        let pool = top(80, by: timed)
        for index in 0..<randomCount {
            let size = 2 + next(9)
            var chosen: [CourseOptions] = []
            var taken = Set<Int>()
            while chosen.count < size {
                let pick = next(pool.count)
                if taken.insert(pick).inserted { chosen.append(pool[pick]) }
            }
            var item = Case(name: "random \(index)", courses: chosen, ratings: next(3) == 0 ? RatingBook() : ratings)
            item.limit = [1, 5, 20, 20, 50][next(5)]
            if next(4) == 0 {
                let optional = 1 + next(min(3, size - 1))
                for position in 0..<optional { item.courses[size - 1 - position].optional = true }
                item.constraints.maxCourses = size - next(optional + 1)
            }
            if next(5) == 0 { item.constraints.minUnits = Double(2 + next(3 * size)) }
            if next(5) == 0 { item.constraints.maxUnits = Double(3 + next(3 * size)) }
            if next(6) == 0 {
                let days: [Weekdays] = [.friday, .monday, [.tuesday, .thursday]]
                item.constraints.blocked = [BlockedTime(
                    days: days[next(days.count)], start: TimeOfDay(minutes: 480 + 30 * next(8)), end: TimeOfDay(minutes: 720 + 30 * next(8))
                )]
            }
            if next(8) == 0 { item.constraints.openSeatsOnly = true }
            if next(8) == 0, let section = chosen[next(size)].sections.first { item.constraints.excluded = [section.classID] }
            if next(5) == 0 {
                let values: [Double] = [0, 0.25, 1, 2]
                item.weights = RankingWeights(
                    gpa: values[next(4)], rating: values[next(4)], gaps: values[next(4)], days: values[next(4)],
                    laterStart: values[next(4)], earlierEnd: values[next(4)]
                )
            }
            result.append(item)
        }
        return result
    }

    /// Builds every case and writes the outcomes to `path`; returns the file's digest.
    mutating func run(writingTo path: String, randomCount: Int) -> String {
        var text = ""
        var inexact = 0
        let started = ContinuousClock.now
        for item in cases(randomCount: randomCount) {
            let builder = ScheduleBuilder(ratings: item.ratings, weights: item.weights)
            let outcome = builder.build(courses: item.courses, constraints: item.constraints, limit: item.limit)
            if !outcome.rankingIsExact || !outcome.countIsExact { inexact += 1 }
            text += "== \(item.name): \(item.courses.map { $0.label + ($0.optional ? "?" : "") }.joined(separator: ", "))"
            text += " limit \(item.limit), \(item.constraints), \(item.weights)\n"
            dump(outcome, to: &text)
        }
        try? text.write(toFile: path, atomically: true, encoding: .utf8)
        let digest = String(fnv(text), radix: 16)
        print("verify: \(randomCount) random cases and the selections written to \(path): digest \(digest), \(inexact) cases with a budget-limited count or ranking (\(human(seconds(ContinuousClock.now - started))))")
        return digest
    }
}

// Scheduling benchmark: `ScheduleBuilder.build` latency on real umd.io sections, against a naive
// Cartesian search (what Jupiter, a brute-force builder, did) on the same input.
//
//   swift build -c release --product scheduling-bench --scratch-path .build-release
//   .build-release/release/scheduling-bench [path/to/umdio.json] [--runs 200] [--warmup 20]
//       [--seconds 10] [--sizes 5,8,10] [--limit 20] [--selections all|most-sections|most-timed-sections|generated]
//       [--breakdown yes|no] [--naive yes|no] [--naive-cap 10] [--naive-finish 20]
//       [--ratings all|none|synthetic] [--verify FILE] [--verify-cases 3000] [--write-http FOLDER]
//
// `--seconds` bounds each case: slow builds get fewer runs (at least 20). The naive search on the
// smallest size runs to the end if that takes under `--naive-finish` seconds, else it stops after
// `--naive-cap` seconds; the larger sizes are run for 2 s. A search that did not finish is
// extrapolated from its cost per combination over random combinations (the odometer's first
// seconds only vary the last courses, which is not a fair sample).
//
// The umd.io file defaults to ../shared/data/umdio/202005.json (relative to the repo root).
// Courses are grouped by `SUBJ NUM`; each section becomes a `SectionOption` (open seats =
// seats - enrolled, at least 0). Two selections of N courses are measured:
//  - `most sections`: the N courses with the most sections (ties by label), as asked;
//  - `most timed sections`: the N courses with the most sections that meet at a set time,
//    since in this summer term the largest courses are all TBA (research, thesis) sections;
//  - `generated` (only when asked for, not in `all`): the first N courses of a made-up,
//    fall-like catalog (GeneratedCatalog.swift), for a catalog the builder was not tuned on.
// Each is built with no ratings (every value the median) and with a synthetic rating book
// (about half the instructors and two thirds of the courses rated, from a hash of the name, as
// the demo's ratings are), which splits the builder's groups of interchangeable sections.
//
// `--ratings none` or `synthetic` builds with one rating book only (for a profiler's counts).
// `--verify FILE` measures nothing: it writes the full outcomes of the selections and of
// `--verify-cases` seeded random requests to FILE and prints their digest, so two builds of the
// builder can be checked for identical answers (Verification.swift).
import Catalog
import Foundation
import Scheduling

// MARK: - Arguments

let arguments = Array(CommandLine.arguments.dropFirst())
let flagsWithValues: Set<String> = [
    "--runs", "--warmup", "--sizes", "--naive-cap", "--naive-finish", "--breakdown", "--limit", "--seconds", "--naive", "--selections",
    "--verify", "--verify-cases", "--ratings", "--write-http",
]

func option(_ name: String, default value: String) -> String {
    if let index = arguments.firstIndex(of: name), index + 1 < arguments.count { return arguments[index + 1] }
    return value
}

var positional: [String] = []
do {
    var index = 0
    while index < arguments.count {
        if flagsWithValues.contains(arguments[index]) { index += 2; continue }
        positional.append(arguments[index])
        index += 1
    }
}
let path = positional.first ?? "../shared/data/umdio/202005.json"
let runs = max(1, Int(option("--runs", default: "200")) ?? 200)
let warmup = max(0, Int(option("--warmup", default: "20")) ?? 20)
let sizes = option("--sizes", default: "5,8,10").split(separator: ",").compactMap { Int($0) }
let limit = Int(option("--limit", default: "20")) ?? 20
/// Stop the naive search after this many seconds when it would not finish within `naiveFinish`.
let naiveCap = Double(option("--naive-cap", default: "10")) ?? 10
let naiveFinish = Double(option("--naive-finish", default: "20")) ?? 20
let breakdown = option("--breakdown", default: "yes") == "yes"
let runNaive = option("--naive", default: "yes") == "yes"
/// Each case stops measuring after this many seconds (but runs at least 20 times).
let secondsPerCase = Double(option("--seconds", default: "10")) ?? 10
let selectionFilter = option("--selections", default: "all")
/// Which rating books to build with (`all`: none, then synthetic).
let ratingsFilter = option("--ratings", default: "all")

func loadAverage() -> String {
    ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "n/a")
        .split(separator: " ").prefix(3).joined(separator: " ")
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.down)))]
}

/// `12,345`.
func grouped(_ value: Int) -> String {
    let digits = String(value)
    var out = ""
    for (offset, character) in digits.enumerated() {
        if offset > 0, (digits.count - offset) % 3 == 0 { out.append(",") }
        out.append(character)
    }
    return out
}

/// A duration in the unit that reads best.
func human(_ seconds: Double) -> String {
    if seconds < 1e-3 { return String(format: "%.1f µs", seconds * 1e6) }
    if seconds < 1 { return String(format: "%.2f ms", seconds * 1e3) }
    if seconds < 3600 { return String(format: "%.1f s", seconds) }
    if seconds < 86400 * 2 { return String(format: "%.1f h", seconds / 3600) }
    if seconds < 86400 * 730 { return String(format: "%.0f days", seconds / 86400) }
    return String(format: "%.2g years", seconds / (86400 * 365.25))
}

func ratio(_ value: Double) -> String {
    if value >= 1e6 { return String(format: "%.2g×", value) }
    if value >= 100 { return "\(grouped(Int(value.rounded())))×" }
    return String(format: "%.1f×", value)
}

print("# scheduling-bench")
print("load average at start: \(loadAverage()) (\(ProcessInfo.processInfo.activeProcessorCount) cores)")

// MARK: - Input

let started = ContinuousClock.now
let data: Data
do {
    data = try Data(contentsOf: URL(fileURLWithPath: path))
} catch {
    print("cannot read \(path): \(error)")
    exit(1)
}
let document = try UMDIOCatalogFormat.parse(data, college: nil)
var unitsByCourse: [String: Double] = [:]
for course in document.courses {
    unitsByCourse["\(course.subjectCode) \(course.number)"] = CourseOptions.units(parsing: course.units)
}
var sectionsByCourse: [String: [SectionOption]] = [:]
// umd.io classes carry no ids: number them in file order.
for (offset, item) in document.classes.enumerated() {
    let label = "\(item.subjectCode) \(item.courseNumber)"
    sectionsByCourse[label, default: []].append(SectionOption(
        classID: Int64(offset + 1), section: item.section, component: item.component, links: item.links,
        instructors: item.instructors, meetings: item.meetings, openSeats: max(0, item.seats - item.enrolled)
    ))
}
let allCourses = sectionsByCourse.map { label, sections in
    CourseOptions(label: label, units: unitsByCourse[label] ?? 0, sections: sections)
}
let terms = Set(document.classes.map(\.term)).sorted()
print("input: \(path): \(document.classes.count) sections of \(allCourses.count) courses, term \(terms.joined(separator: ", ")) (parsed in \(human(seconds(ContinuousClock.now - started))))")

func isTimed(_ section: SectionOption) -> Bool { section.meetings.contains(where: \.isScheduled) }

struct Selection {
    let name: String
    let key: (CourseOptions) -> Int
    /// The courses it picks from, and the synthetic rating book for them.
    var pool: [CourseOptions] = allCourses
    var book: RatingBook = syntheticBook
}

let syntheticBook = makeSyntheticBook(for: allCourses)
/// `--selections generated`: a made-up fall-like catalog (GeneratedCatalog.swift), rated the same way.
let generatedCourses = GeneratedCatalog.courses(count: 12)
let generatedBook = makeSyntheticBook(for: generatedCourses)

let selections = [
    Selection(name: "most sections", key: { $0.sections.count }),
    Selection(name: "most timed sections", key: { $0.sections.filter(isTimed).count }),
    Selection(name: "generated", key: { _ in 0 }, pool: generatedCourses, book: generatedBook),
].filter { selection in
    selectionFilter == "all" ? selection.name != "generated" : selection.name.replacingOccurrences(of: " ", with: "-") == selectionFilter
}

func pick(_ count: Int, by selection: Selection) -> [CourseOptions] {
    Array(selection.pool.sorted { a, b in
        let ka = selection.key(a), kb = selection.key(b)
        return ka != kb ? ka > kb : a.label < b.label
    }.prefix(count))
}

/// Ratings from a hash of the name (FNV-1a), like the demo's: two courses in three get an
/// average GPA, one instructor in two a rating.
func fnv(_ text: String) -> UInt64 {
    var value: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in text.utf8 {
        value ^= UInt64(byte)
        value = value &* 0x0000_0100_0000_01B3
    }
    return value
}

/// GPAs by course label and ratings by instructor name (as in the catalog), from the hashes.
func syntheticRatings(for courses: [CourseOptions]) -> (gpas: [String: Double], ratings: [String: Double]) {
    var gpas: [String: Double] = [:]
    var ratings: [String: Double] = [:]
    for course in courses where fnv(course.label) % 3 != 0 {
        gpas[course.label] = 2.3 + Double(fnv(course.label + "gpa") % 150) / 100
    }
    for name in Set(courses.flatMap { $0.sections.flatMap(\.instructors) }) where fnv(name) % 2 == 0 {
        ratings[name] = 2.0 + Double(fnv(name + "rating") % 300) / 100
    }
    return (gpas, ratings)
}

func makeSyntheticBook(for courses: [CourseOptions]) -> RatingBook {
    let (gpas, ratings) = syntheticRatings(for: courses)
    return RatingBook(courseGPAs: gpas, instructorRatings: ratings)
}

if let index = arguments.firstIndex(of: "--verify"), index + 1 < arguments.count {
    var verification = Verification(
        courses: allCourses.sorted { $0.label < $1.label }, ratings: syntheticBook, generated: generatedCourses, generatedRatings: generatedBook
    )
    _ = verification.run(writingTo: arguments[index + 1], randomCount: Int(option("--verify-cases", default: "3000")) ?? 3000)
    exit(0)
}

// `--write-http FOLDER`: the synthetic ratings of the umd.io file as an import file
// (ratings.json, for `gateway import-ratings --replace`) and a build request for the largest
// `--sizes` of the first selection (body.json, limit `--limit`), for bench/scheduling-bench.sh.
if let index = arguments.firstIndex(of: "--write-http"), index + 1 < arguments.count, let selection = selections.first {
    let folder = URL(fileURLWithPath: arguments[index + 1])
    let (gpas, ratings) = syntheticRatings(for: allCourses)
    let file: [String: Any] = [
        "courses": gpas.keys.sorted().map { ["course": $0, "averageGPA": gpas[$0]!] },
        "instructors": ratings.keys.sorted().map { ["name": $0, "rating": ratings[$0]!] },
    ]
    let courses = pick(sizes.max() ?? 10, by: selection)
    let body: [String: Any] = ["term": terms.first ?? "", "courses": courses.map(\.label), "limit": limit]
    try JSONSerialization.data(withJSONObject: file, options: [.sortedKeys]).write(to: folder.appendingPathComponent("ratings.json"))
    try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys]).write(to: folder.appendingPathComponent("body.json"))
    print("wrote \(folder.path)/ratings.json (\(gpas.count) course GPAs, \(ratings.count) instructor ratings) and body.json (\(selection.name): \(courses.map(\.label).joined(separator: ", ")))")
    exit(0)
}

// MARK: - The builder

struct BuilderFigures {
    var runs: Int
    var p50: Double
    var p99: Double
    var max: Double
    var outcome: BuildOutcome
}

nonisolated(unsafe) var sink = 0

/// `runs` timed builds after `warmup` untimed ones; both shrink (to at least `minimumRuns` and 2)
/// when the builds are slow enough that they would take more than `budget` seconds.
func measure(
    _ builder: ScheduleBuilder, _ courses: [CourseOptions], runs: Int, warmup: Int, budget: Double = secondsPerCase, minimumRuns: Int = 20
) -> BuilderFigures {
    let clock = ContinuousClock()
    var outcome = builder.build(courses: courses, constraints: BuildConstraints(), limit: limit)
    let first = seconds(clock.measure { outcome = builder.build(courses: courses, constraints: BuildConstraints(), limit: limit) })
    let affordable = Int(budget / max(first, 1e-9))
    let runs = min(runs, max(minimumRuns, affordable))
    for _ in 0..<min(warmup, max(2, affordable / 10)) {
        sink &+= builder.build(courses: courses, constraints: BuildConstraints(), limit: limit).count
    }
    var times: [Double] = []
    times.reserveCapacity(runs)
    for _ in 0..<runs {
        let elapsed = clock.measure { outcome = builder.build(courses: courses, constraints: BuildConstraints(), limit: limit) }
        sink &+= outcome.count
        times.append(seconds(elapsed))
    }
    times.sort()
    return BuilderFigures(runs: runs, p50: percentile(times, 0.5), p99: percentile(times, 0.99), max: times.last!, outcome: outcome)
}

// MARK: - Runs

struct Row {
    var selection: String
    var courses: [CourseOptions]
    var ratings: String
    var figures: BuilderFigures
}

var rows: [Row] = []
var breakdownRows: [(String, Int, String, [Double])] = []

for selection in selections {
    for size in sizes {
        let courses = pick(size, by: selection)
        for (ratingsName, book) in [("none", RatingBook()), ("synthetic", selection.book)] where ratingsFilter == "all" || ratingsFilter == ratingsName {
            let builder = ScheduleBuilder(ratings: book)
            let figures = measure(builder, courses, runs: runs, warmup: warmup)
            rows.append(Row(selection: selection.name, courses: courses, ratings: ratingsName, figures: figures))
            if breakdown {
                // Budgets of 0 skip a phase: counting (countBudget), feasibility and ranking
                // (rankingBudget); with both at 0 only the candidates are prepared.
                var noCount = builder; noCount.countBudget = 0
                var noRank = builder; noRank.rankingBudget = 0
                var prepOnly = noCount; prepOnly.rankingBudget = 0
                let short = max(20, runs / 4)
                func p50(_ variant: ScheduleBuilder) -> Double {
                    measure(variant, courses, runs: short, warmup: 5, budget: secondsPerCase / 3, minimumRuns: 5).p50
                }
                breakdownRows.append((selection.name, size, ratingsName, [figures.p50, p50(prepOnly), p50(noRank), p50(noCount)]))
            }
        }
    }
}

print("\n## ScheduleBuilder.build, limit \(limit), up to \(runs) runs (\(Int(secondsPerCase)) s per case, at least 20) after up to \(warmup) warm-up runs (release)\n")
print("| courses | N | ratings | sections per course | Cartesian size | runs | p50 | p99 | max | count (exact?) | ranking exact? | placed |")
print("|---|---:|---|---|---:|---:|---:|---:|---:|---:|---|---:|")
for row in rows {
    let product = row.courses.reduce(1.0) { $0 * Double($1.sections.count) }
    let outcome = row.figures.outcome
    let counts = row.courses.map { String($0.sections.count) }.joined(separator: "·")
    print("| \(row.selection) | \(row.courses.count) | \(row.ratings) | \(counts) | \(String(format: "%.3g", product)) | \(row.figures.runs) | \(human(row.figures.p50)) | \(human(row.figures.p99)) | \(human(row.figures.max)) | \(grouped(outcome.count)) (\(outcome.countIsExact ? "exact" : "lower bound")) | \(outcome.rankingIsExact ? "yes" : "no") | \(outcome.courseCount)\(outcome.explanation != nil ? " (explained)" : "") |")
}
// For bench/run-all.sh's medians: the builder's worst case, timed courses with ratings.
for row in rows where row.selection == "most timed sections" && row.ratings != "none" && row.courses.count >= 8 {
    for (name, value) in [("p50", row.figures.p50), ("p99", row.figures.p99)] {
        print("figure|builder in process, \(row.courses.count) most-timed umd.io courses, \(row.ratings) ratings: \(name)|\(String(format: "%.3f", value * 1e3))|ms")
    }
}
for selection in selections {
    for size in sizes {
        print("- \(selection.name), N=\(size): \(pick(size, by: selection).map(\.label).joined(separator: ", "))")
    }
}

// MARK: - The builder with friends (FriendsBench.swift)

if let worst = rows.last(where: { $0.selection == "most timed sections" && $0.ratings == "synthetic" }) {
    benchBuilderWithFriends(
        courses: worst.courses, book: selections.first { $0.name == worst.selection }?.book ?? RatingBook(),
        allSections: allCourses.flatMap { $0.sections.map(\.classID) }, plainP50: worst.figures.p50
    )
}

if breakdown {
    print("\n## Where the builder's time goes (p50; budgets set to 0 to skip a phase)\n")
    print("| courses | N | ratings | full build | prepare only | prepare + count | prepare + feasibility + rank |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for (selection, size, ratings, values) in breakdownRows {
        print("| \(selection) | \(size) | \(ratings) | \(values.map(human).joined(separator: " | ")) |")
    }
}

if runNaive, ratingsFilter == "all" {
    print("\n## Naive Cartesian search (no pruning, no folding; conflicts pair by pair; top \(limit) by credit-weighted rating)\n")
    print("| courses | N | Cartesian size | naive: run | per combination (odometer / random sample) | naive total | builder p50, no ratings / synthetic | speed-up, no ratings / synthetic | conflict-free (naive / builder) |")
    print("|---|---:|---:|---|---|---:|---:|---:|---|")
    for selection in selections {
        for size in sizes {
            let courses = pick(size, by: selection)
            let naive = NaiveSearch(courses, book: selection.book)
            // The largest inputs are only sampled: their odometer run would never finish.
            let result = size == sizes.min() ? naive.run(cap: naiveCap, finish: naiveFinish) : naive.run(cap: 2, finish: 2)
            let odometerCost = result.elapsed / Double(result.combinations)
            let sampled = result.finished ? odometerCost : naive.sampledCostPerCombination(seconds: 2)
            let total = result.finished ? result.elapsed : sampled * naive.product
            let builder = rows.first { $0.selection == selection.name && $0.courses.count == size && $0.ratings == "synthetic" }!
            let plain = rows.first { $0.selection == selection.name && $0.courses.count == size && $0.ratings == "none" }!
            let outcome = builder.figures.outcome
            let runText = result.finished
                ? "finished in \(human(result.elapsed))"
                : "stopped after \(human(result.elapsed)) at \(grouped(result.combinations)) combinations"
            let checked: String
            if result.finished {
                let builderCount = outcome.courseCount == size ? outcome.count : 0
                let agree = outcome.countIsExact ? (builderCount == result.conflictFree ? "agree" : "DIFFER") : "builder count is a lower bound"
                checked = "\(grouped(result.conflictFree)) / \(grouped(builderCount)) (\(agree))"
            } else {
                checked = "naive did not finish"
            }
            print("| \(selection.name) | \(size) | \(String(format: "%.3g", naive.product)) | \(runText) | \(human(odometerCost)) / \(result.finished ? "-" : human(sampled)) | \(result.finished ? "" : "≈ ")\(human(total)) | \(human(plain.figures.p50)) / \(human(builder.figures.p50)) | \(ratio(total / plain.figures.p50)) / \(ratio(total / builder.figures.p50)) | \(checked) |")
        }
    }
}

print("\nload average at end: \(loadAverage()); total \(human(seconds(ContinuousClock.now - started))) (sink \(sink % 10))")

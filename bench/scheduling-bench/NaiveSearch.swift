import Catalog
import Foundation
import Scheduling

// MARK: - The naive search

/// Every combination of one section per course, odometer order, no pruning and no folding:
/// each combination is checked pair by pair with `Meeting.conflicts(with:)` and, when free of
/// conflicts, scored (credits × the section's instructor rating / 5) and kept if it makes the
/// top `limit` (a sorted array).
struct NaiveSearch {
    let sections: [[SectionOption]]
    /// Credits × rating / 5 for each section, worked out once.
    let value: [[Double]]
    let product: Double

    init(_ courses: [CourseOptions], book: RatingBook) {
        sections = courses.map(\.sections)
        value = courses.map { course in
            course.sections.map { course.units * book.rating(instructors: $0.instructors).value / 5 }
        }
        product = courses.reduce(1.0) { $0 * Double($1.sections.count) }
    }

    struct Kept {
        var score: Double
        var choice: [Int]
    }

    struct Result {
        var combinations = 0
        var conflictFree = 0
        var finished = false
        var elapsed = 0.0
        var top: [Kept] = []
    }

    /// Whether one combination is free of conflicts, and its score.
    @inline(__always)
    func evaluate(_ choice: [Int]) -> Double? {
        for i in 0..<choice.count {
            let mine = sections[i][choice[i]].meetings
            for j in (i + 1)..<choice.count where mine.conflicts(with: sections[j][choice[j]].meetings) {
                return nil
            }
        }
        var score = 0.0
        for i in 0..<choice.count { score += value[i][choice[i]] }
        return score
    }

    func keep(_ score: Double, _ choice: [Int], in top: inout [Kept]) {
        if top.count == limit, let last = top.last, score <= last.score { return }
        let index = top.firstIndex { $0.score < score } ?? top.count
        top.insert(Kept(score: score, choice: choice), at: index)
        if top.count > limit { top.removeLast() }
    }

    /// Runs the whole search, or stops after `cap` seconds once it is clear it would not finish
    /// within `finish` seconds.
    func run(cap: Double, finish: Double) -> Result {
        var result = Result()
        let clock = ContinuousClock()
        let start = clock.now
        var choice = Array(repeating: 0, count: sections.count)
        outer: while true {
            if let score = evaluate(choice) {
                result.conflictFree += 1
                keep(score, choice, in: &result.top)
            }
            result.combinations += 1
            if result.combinations & 0xFFFF == 0 {
                let elapsed = seconds(clock.now - start)
                let projected = elapsed / Double(result.combinations) * product
                if elapsed > finish || (elapsed > cap && projected > finish) { break outer }
            }
            var position = sections.count - 1
            while position >= 0 {
                choice[position] += 1
                if choice[position] < sections[position].count { break }
                choice[position] = 0
                position -= 1
            }
            if position < 0 { result.finished = true; break }
        }
        result.elapsed = seconds(clock.now - start)
        return result
    }

    /// Seconds per combination over uniformly random combinations (the odometer's first
    /// seconds only vary the last courses, so they can be cheaper or dearer than the average).
    func sampledCostPerCombination(seconds budget: Double) -> Double {
        var generator = SplitMix64(seed: 0x5EED)
        var top: [Kept] = []
        var done = 0
        let clock = ContinuousClock()
        let start = clock.now
        var choice = Array(repeating: 0, count: sections.count)
        while true {
            for _ in 0..<4096 {
                for i in choice.indices { choice[i] = Int.random(in: 0..<sections[i].count, using: &generator) }
                if let score = evaluate(choice) { keep(score, choice, in: &top) }
            }
            done += 4096
            let elapsed = seconds(clock.now - start)
            if elapsed > budget { return elapsed / Double(done) }
        }
    }
}

/// A fast deterministic generator (SplitMix64): the system one costs a system call per number.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

import Foundation
import Scheduling

/// `withFriends` (issue 51): the same build, then ``FriendRanking`` over 50 friends taking 500
/// sections between them, a third of them among the requested courses' sections (so the
/// reordering has work to do), the rest elsewhere. Alternating plain and with-friends builds,
/// so a drift of the machine falls on both. The friends' rows are read by the service before
/// this runs (one indexed read each for the friendships, the shared enrollments and the
/// friends-visible schedules), which this run leaves out.
@MainActor
func benchBuilderWithFriends(courses: [CourseOptions], book: RatingBook, allSections: [Int64], plainP50: Double) {
    let builder = ScheduleBuilder(ratings: book)
    let requested = courses.flatMap { $0.sections.map(\.classID) }
    let elsewhere = allSections.filter { !Set(requested).contains($0) }
    var friendsByClass: [Int64: [Int64]] = [:]
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next(_ bound: Int) -> Int {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Int((state >> 33) % UInt64(max(bound, 1)))
    }
    for index in 0..<500 {
        let pool = index % 3 == 0 || elsewhere.isEmpty ? requested : elsewhere
        friendsByClass[pool[next(pool.count)], default: []].append(Int64(1_000 + next(50)))
    }
    let clock = ContinuousClock()
    var plain: [Double] = [], withFriends: [Double] = []
    let pairs = max(20, min(runs, Int(secondsPerCase / max(plainP50 * 2, 1e-9))))
    for _ in 0..<pairs {
        plain.append(seconds(clock.measure { sink &+= builder.build(courses: courses, constraints: BuildConstraints(), limit: limit).count }))
        withFriends.append(seconds(clock.measure {
            let outcome = builder.build(courses: courses, constraints: BuildConstraints(), limit: limit)
            sink &+= FriendRanking.apply(outcome, friendsByClass: friendsByClass).1.count
        }))
    }
    plain.sort()
    withFriends.sort()
    let ratioWith = percentile(withFriends, 0.5) / percentile(plain, 0.5)
    print("\n## The builder with friends (\(courses.count) most-timed courses, 50 friends in 500 sections, \(pairs) alternating pairs)\n")
    print("| build | p50 | p99 |")
    print("|---|---:|---:|")
    print("| plain | \(human(percentile(plain, 0.5))) | \(human(percentile(plain, 0.99))) |")
    print("| withFriends | \(human(percentile(withFriends, 0.5))) | \(human(percentile(withFriends, 0.99))) |")
    print("with friends over plain (p50): \(String(format: "%.3f", ratioWith)) (target: at most 1.10)")
    print("figure|builder with 50 friends in 500 sections, over the plain build (p50)|\(String(format: "%.3f", ratioWith))|x")
}

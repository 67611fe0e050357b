/// The builder with friends: among options that are otherwise equal, those that share more
/// sections with the student's friends come first. "Otherwise equal" is exact: two
/// interchangeable sections (the same meetings and instructors, folded into one option's
/// ``PlacedSection/alternatives``) and two schedules of the same score. Nothing that scores
/// higher is ever passed over for a friend.
public enum FriendRanking {
    /// A friend in a schedule: who, and the sections they share with it.
    public struct SharedSections: Sendable, Equatable {
        public var friendID: Int64
        public var classIDs: [Int64]
    }

    /// The outcome with each placed section showing the alternative most friends take, and
    /// schedules of equal score ordered by how many sections they share with friends (then as
    /// before); with, per schedule in the new order, the friends it shares sections with.
    /// `friendsByClass`: the friends who take each class. Empty: the outcome as it was.
    public static func apply(_ outcome: BuildOutcome, friendsByClass: [Int64: [Int64]]) -> (BuildOutcome, [[SharedSections]]) {
        guard !friendsByClass.isEmpty else { return (outcome, outcome.schedules.map { _ in [] }) }
        func friends(_ id: Int64) -> Int { friendsByClass[id]?.count ?? 0 }
        var schedules = outcome.schedules.map { schedule in
            var schedule = schedule
            schedule.sections = schedule.sections.map { placed in
                let options = [placed.classID] + placed.alternatives
                // The first of the most-befriended options, so ties keep the builder's choice.
                var best = placed.classID
                for option in options where friends(option) > friends(best) { best = option }
                guard best != placed.classID else { return placed }
                var placed = placed
                placed.alternatives = options.filter { $0 != best }
                placed.classID = best
                return placed
            }
            return schedule
        }
        func shared(_ schedule: RankedSchedule) -> Int { schedule.sections.filter { friends($0.classID) > 0 }.count }
        // A stable sort inside each run of equal scores.
        let indexed = schedules.enumerated().map { ($0.offset, $0.element) }
        schedules = indexed.sorted { first, second in
            if first.1.score != second.1.score { return first.0 < second.0 }
            let (a, b) = (shared(first.1), shared(second.1))
            return a != b ? a > b : first.0 < second.0
        }.map(\.1)
        for index in schedules.indices { schedules[index].rank = index + 1 }
        var ranked = outcome
        ranked.schedules = schedules
        let sharing = schedules.map { schedule -> [SharedSections] in
            var byFriend: [Int64: [Int64]] = [:]
            for placed in schedule.sections {
                for friend in friendsByClass[placed.classID] ?? [] { byFriend[friend, default: []].append(placed.classID) }
            }
            return byFriend.keys.sorted().map { SharedSections(friendID: $0, classIDs: byFriend[$0] ?? []) }
        }
        return (ranked, sharing)
    }
}

@testable import Scheduling
import Testing

/// The builder with friends (``FriendRanking``): only options that are otherwise equal move.
@Suite("The builder with friends")
struct FriendRankingTests {
    static func schedule(_ rank: Int, score: Double, _ sections: [(Int64, [Int64])]) -> RankedSchedule {
        RankedSchedule(
            rank: rank, score: score, breakdown: ScoreBreakdown(components: [], courses: []),
            sections: sections.map { PlacedSection(course: "C\($0.0)", component: "", classID: $0.0, alternatives: $0.1) }, omitted: [], units: 3
        )
    }

    static func outcome(_ schedules: [RankedSchedule]) -> BuildOutcome {
        BuildOutcome(count: schedules.count, countIsExact: true, rankingIsExact: true, courseCount: 1, schedules: schedules, explanation: nil)
    }

    @Test func withNoFriendsTheOutcomeIsUnchanged() {
        let outcome = Self.outcome([Self.schedule(1, score: 90, [(1, [2])]), Self.schedule(2, score: 80, [(3, [])])])
        let (ranked, shared) = FriendRanking.apply(outcome, friendsByClass: [:])
        #expect(ranked == outcome)
        #expect(shared == [[], []])
    }

    @Test func anInterchangeableSectionAFriendTakesIsShownFirst() {
        let outcome = Self.outcome([Self.schedule(1, score: 90, [(1, [2, 3])])])
        let (ranked, shared) = FriendRanking.apply(outcome, friendsByClass: [3: [70], 2: []])
        #expect(ranked.schedules[0].sections[0].classID == 3)
        #expect(ranked.schedules[0].sections[0].alternatives == [1, 2])
        #expect(shared == [[FriendRanking.SharedSections(friendID: 70, classIDs: [3])]])
    }

    @Test func equalScoresAreOrderedBySharedSectionsAndHigherScoresNeverPassedOver() {
        let outcome = Self.outcome([
            Self.schedule(1, score: 95, [(10, []), (11, [])]),
            Self.schedule(2, score: 90, [(20, []), (21, [])]),
            Self.schedule(3, score: 90, [(30, []), (31, [])]),
            Self.schedule(4, score: 90, [(40, []), (41, [])]),
        ])
        // Friends take both of schedule 4's sections, one of schedule 3's, and none of the best one's.
        let (ranked, shared) = FriendRanking.apply(outcome, friendsByClass: [40: [7], 41: [8], 31: [7]])
        #expect(ranked.schedules.map { $0.sections[0].classID } == [10, 40, 30, 20])
        #expect(ranked.schedules.map(\.rank) == [1, 2, 3, 4])
        #expect(shared[1] == [.init(friendID: 7, classIDs: [40]), .init(friendID: 8, classIDs: [41])])
        #expect(shared[0].isEmpty && shared[3].isEmpty)
    }
}

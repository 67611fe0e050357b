/// The schedule builder: every conflict-free combination of sections for the wanted courses,
/// counted, the best ranked, and explained when none exists. Pure and deterministic: the same
/// input gives the same answer, byte for byte once encoded.
///
/// Budgets are node counts, not clock time, so that a slow machine gives the same answer as a
/// fast one; they keep a request for ten large courses answering in milliseconds.
public struct ScheduleBuilder: Sendable {
    public var ratings: RatingBook
    public var weights: RankingWeights
    /// Search nodes for counting; past it the count is a lower bound.
    public var countBudget = 40_000
    /// Search nodes for ranking; past it the best found are returned.
    public var rankingBudget = 100_000
    /// Search nodes per feasibility check while explaining.
    public var explanationBudget = 20_000

    public init(ratings: RatingBook = RatingBook(), weights: RankingWeights = RankingWeights()) {
        self.ratings = ratings
        self.weights = weights
    }

    public func build(courses: [CourseOptions], constraints: BuildConstraints, limit: Int) -> BuildOutcome {
        let required = courses.filter { !$0.optional }
        let largest = min(constraints.maxCourses ?? courses.count, courses.count)
        let candidateBuilder = CandidateBuilder(
            ratings: ratings,
            blockedMask: constraints.blocked.reduce(WeekMask()) { $0.union($1.mask) },
            openSeatsOnly: constraints.openSeatsOnly,
            pinned: Set(constraints.pinned),
            excluded: Set(constraints.excluded)
        )
        let candidates = courses.map { candidateBuilder.candidates(for: $0) }
        if largest >= required.count {
            for target in stride(from: largest, through: max(required.count, 1), by: -1) {
                let ranking = Ranking(weights: weights, referenceUnits: referenceUnits(courses, target: target))
                // A course without candidates cannot be placed: required ones make the target impossible.
                let prepared = zip(courses.indices, courses).map { position, course in
                    PreparedCourse(position: position, course: course, candidates: (try? candidates[position].get()) ?? [], ratings: ratings, ranking: ranking)
                }
                if prepared.contains(where: { !$0.optional && $0.candidates.isEmpty }) { break }
                let slots = SearchSpace(
                    courses: prepared, target: target, minUnits: constraints.minUnits, maxUnits: constraints.maxUnits, counting: true
                )
                var check = FeasibilityCheck(space: slots, budget: rankingBudget)
                guard check.run() != false else { continue }
                var counter = ScheduleCounter(space: slots, budget: countBudget)
                counter.run()
                let space = SearchSpace(
                    courses: prepared, target: target, minUnits: constraints.minUnits, maxUnits: constraints.maxUnits, counting: false
                )
                var top = TopSchedules(space: space, ranking: ranking, limit: limit, budget: rankingBudget)
                top.run()
                if top.kept.isEmpty, top.complete { continue }
                return BuildOutcome(
                    count: counter.count, countIsExact: counter.exact, rankingIsExact: top.complete, courseCount: target,
                    schedules: top.kept.enumerated().map { describe($0.element, rank: $0.offset + 1, prepared: prepared, ranking: ranking) },
                    explanation: nil
                )
            }
        }
        let explainer = Explainer(
            courses: courses, constraints: constraints, ratings: ratings, weights: weights, budget: explanationBudget
        )
        return BuildOutcome(
            count: 0, countIsExact: true, rankingIsExact: true, courseCount: required.count, schedules: [],
            explanation: explainer.explain()
        )
    }

    /// Units of the required courses plus the largest optional ones that fill up to `target`.
    func referenceUnits(_ courses: [CourseOptions], target: Int) -> Double {
        let required = courses.filter { !$0.optional }
        let optional = courses.filter(\.optional).map(\.units).sorted(by: >)
        return required.map(\.units).reduce(0, +) + optional.prefix(max(0, target - required.count)).reduce(0, +)
    }

    private func describe(_ placement: Placement, rank: Int, prepared: [PreparedCourse], ranking: Ranking) -> RankedSchedule {
        var sections: [PlacedSection] = []
        var omitted: [String] = []
        var courseScores: [CourseScore] = []
        var units = 0.0
        var gpaPoints: Int64 = 0
        for (position, option) in placement.choice.enumerated() {
            let course = prepared[position]
            guard option >= 0 else { omitted.append(course.course.label); continue }
            let candidate = course.candidates[option]
            units += course.units
            gpaPoints += course.gpaPoints
            for index in candidate.classIDs.indices {
                sections.append(PlacedSection(
                    course: course.course.label, component: candidate.components[index],
                    classID: candidate.classIDs[index], alternatives: candidate.alternatives[index]
                ))
            }
            courseScores.append(CourseScore(
                course: course.course.label, units: course.units, gpa: course.gpa, gpaKnown: course.gpaKnown,
                rating: candidate.rating, ratingKnown: candidate.ratingKnown, instructors: candidate.instructors,
                points: course.quality[option].points
            ))
        }
        let components: [(String, Int64)] = [
            ("gpa", gpaPoints), ("rating", placement.quality - gpaPoints), ("gaps", placement.shape.gaps),
            ("days", placement.shape.days), ("laterStart", placement.shape.laterStart), ("earlierEnd", placement.shape.earlierEnd),
        ]
        return RankedSchedule(
            rank: rank, score: placement.score.points,
            breakdown: ScoreBreakdown(components: components.map { ($0.0, $0.1.points) }, courses: courseScores),
            sections: sections, omitted: omitted, units: units
        )
    }
}

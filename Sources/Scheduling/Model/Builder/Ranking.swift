/// The ranking rule, in fixed-point arithmetic so that bounds and scores add up exactly and
/// two identical requests rank identically on every machine.
///
/// A schedule's score (0–100) is a weighted mix of components, each between 0 and 1:
/// - `gpa` and `rating`: each placed course's average GPA (/4) and instructor rating (/5),
///   weighted by its units over the units the schedule is expected to carry;
/// - `gaps`: 1 with no idle time between classes on any day, 0 at 20 idle hours a week;
/// - `days`: 1 for one day on campus (or none), falling by 1/6 per extra day;
/// - `laterStart`: 0 when the week's first class starts at 8:00 or earlier, 1 at noon or later;
/// - `earlierEnd`: 1 when the week's last class ends at 15:00 or earlier, 0 at 21:00 or later.
/// Ties break by the placed class ids in request order, smallest first.
struct Ranking: Sendable {
    /// Score units per point: scores are integers of 10^-6 points.
    static let scale = 1_000_000.0

    static let gapScaleMinutes = 1200.0
    static let startFloor = 480.0, startCeiling = 720.0
    static let endFloor = 900.0, endCeiling = 1260.0

    let weights: RankingWeights
    /// Units the schedule is expected to carry: the quality parts are measured against them.
    let referenceUnits: Double

    private var totalWeight: Double { max(weights.total, .leastNonzeroMagnitude) }

    /// `100 × weight / total weight × value`, in score units.
    private func points(_ weight: Double, _ value: Double) -> Int64 {
        guard weight > 0 else { return 0 }
        return Int64((100 * weight / totalWeight * value * Self.scale).rounded())
    }

    /// A placed course's GPA part.
    func gpaPoints(units: Double, gpa: Double) -> Int64 {
        points(weights.gpa, units / max(referenceUnits, 0.001) * min(max(gpa, 0), 4) / 4)
    }

    /// A placed course's rating part.
    func ratingPoints(units: Double, rating: Double) -> Int64 {
        points(weights.rating, units / max(referenceUnits, 0.001) * min(max(rating, 0), 5) / 5)
    }

    func gapPoints(gapMinutes: Int) -> Int64 { points(weights.gaps, 1 - min(1, Double(gapMinutes) / Self.gapScaleMinutes)) }
    func dayPoints(days: Int) -> Int64 { points(weights.days, 1 - Double(max(0, days - 1)) / 6) }
    func startPoints(earliest: Int?) -> Int64 {
        guard let earliest else { return points(weights.laterStart, 1) }
        return points(weights.laterStart, clamp((Double(earliest) - Self.startFloor) / (Self.startCeiling - Self.startFloor)))
    }
    func endPoints(latest: Int?) -> Int64 {
        guard let latest else { return points(weights.earlierEnd, 1) }
        return points(weights.earlierEnd, clamp((Self.endCeiling - Double(latest)) / (Self.endCeiling - Self.endFloor)))
    }

    /// The week-shape parts of a finished schedule.
    func shapePoints(_ shape: WeekShape) -> ShapePoints {
        ShapePoints(
            gaps: gapPoints(gapMinutes: shape.gapMinutes),
            days: dayPoints(days: shape.days),
            laterStart: startPoints(earliest: shape.earliestStart),
            earlierEnd: endPoints(latest: shape.latestEnd)
        )
    }

    /// The most the week-shape parts can still reach when the schedule will use at least
    /// `days` days, start no later than `earliest`, end no earlier than `latest` and keep at
    /// least `gapMinutes` idle.
    func shapeBound(days: Int, earliest: Int?, latest: Int?, gapMinutes: Int) -> Int64 {
        gapPoints(gapMinutes: gapMinutes) + dayPoints(days: days) + startPoints(earliest: earliest) + endPoints(latest: latest)
    }

    private func clamp(_ value: Double) -> Double { min(1, max(0, value)) }
}

/// The week-shape parts of a score, in score units.
struct ShapePoints: Sendable, Equatable {
    var gaps: Int64
    var days: Int64
    var laterStart: Int64
    var earlierEnd: Int64
    var total: Int64 { gaps + days + laterStart + earlierEnd }
}

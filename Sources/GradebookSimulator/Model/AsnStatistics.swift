/// An assignment's statistics (`AsnStats`), computed from its scores.
struct AsnStatistics: Equatable {
    var points: Double
    var minScore: Double
    var maxScore: Double
    var meanScore: Double
    var medianScore: Double
    var stdDev: Double
    /// Every submission of every user.
    var attempts: Int
    /// Users with at least one submission.
    var uniqueStudents: Int

    /// Min, max, mean, median and (population) standard deviation over the scores that count,
    /// one per student; all 0 when nothing counts yet. Rounded to three decimals.
    init(_ assignment: SimulatedAssignment) {
        let counting = assignment.scores.filter(\.counts).map(\.score).sorted()
        points = Double(assignment.maxPoints)
        attempts = assignment.scores.count
        uniqueStudents = Set(assignment.scores.map(\.username)).count
        guard let first = counting.first, let last = counting.last else {
            minScore = 0; maxScore = 0; meanScore = 0; medianScore = 0; stdDev = 0
            return
        }
        let count = Double(counting.count)
        let mean = counting.reduce(0, +) / count
        let middle = counting.count / 2
        let median = counting.count % 2 == 1 ? counting[middle] : (counting[middle - 1] + counting[middle]) / 2
        let variance = counting.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / count
        minScore = first
        maxScore = last
        meanScore = Self.rounded(mean)
        medianScore = Self.rounded(median)
        stdDev = Self.rounded(variance.squareRoot())
    }

    static func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
}

import Catalog
/// One finished schedule found by the search: for each course in request order, the index of
/// its candidate, or -1 when an optional course was left out.
struct Placement: Sendable {
    var choice: [Int]
    var score: Int64
    var quality: Int64
    var shape: ShapePoints
    /// Primary class ids in request order (`Int64.max` for a left-out course): the tie-break.
    var key: [Int64]

    /// Whether `self` ranks before `other`.
    func ranks(before other: Placement) -> Bool {
        score != other.score ? score > other.score : key.lexicographicallyPrecedes(other.key)
    }
}

/// The depth-first search over courses shared by counting, ranking and feasibility: courses
/// with the fewest remaining candidates first, forward checking after every placement (a
/// required course left without a candidate ends the branch), and an exact count of placed
/// courses (`target`) and the unit limits.
///
/// The space is fixed; a search walks it with a ``SearchPath``. Counting and feasibility
/// search slot groups (``PreparedCourse/countGroups``); ranking searches groups of equal
/// points too (``PreparedCourse/groups``).
struct SearchSpace {
    let courses: [PreparedCourse]
    let target: Int
    let minUnits: Double?
    let maxUnits: Double?
    let counting: Bool
    /// The groups searched, laid out flat, with their compatibility bit sets.
    let tables: GroupTables
    /// Course indices by units, largest first: the most units the open courses can add.
    let byUnits: [Int]

    init(courses: [PreparedCourse], target: Int, minUnits: Double?, maxUnits: Double?, counting: Bool) {
        self.courses = courses
        self.target = target
        self.minUnits = minUnits
        self.maxUnits = maxUnits
        self.counting = counting
        tables = GroupTables(
            courseCount: courses.count,
            groups: { counting ? courses[$0].countGroups : courses[$0].groups },
            unscheduled: { courses[$0].allUnscheduled }
        )
        byUnits = courses.indices.sorted { courses[$0].units > courses[$1].units }
    }

    /// Whether a complete placement meets the unit limits.
    func unitsHold(_ units: Double) -> Bool {
        if let minUnits, units < minUnits - 1e-9 { return false }
        if let maxUnits, units > maxUnits + 1e-9 { return false }
        return true
    }
}

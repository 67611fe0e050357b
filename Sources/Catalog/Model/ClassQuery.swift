/// A filter over the catalog. Every field narrows the result; an empty query matches every
/// class. Results are ordered by class id.
public struct ClassQuery: Sendable, Equatable {
    /// Classes in any of these subjects; empty means every subject.
    public var subjectIDs: [Int64]
    public var level: CourseLevel?
    /// Classes whose first meeting starts at or after this time (TBA classes never match).
    public var startsAtOrAfter: TimeOfDay?
    /// Classes whose last meeting ends at or before this time (TBA classes never match).
    public var endsAtOrBefore: TimeOfDay?
    /// Classes that meet only on these days (TBA classes never match).
    public var days: Weekdays?
    /// Only classes with a seat open now.
    public var openSeatsOnly: Bool
    /// Case-insensitive part of an instructor's name.
    public var instructor: String?
    /// Words that must each begin a word of the title, full title, description or course code.
    public var text: String?
    public var term: String?

    public init(
        subjectIDs: [Int64] = [], level: CourseLevel? = nil, startsAtOrAfter: TimeOfDay? = nil,
        endsAtOrBefore: TimeOfDay? = nil, days: Weekdays? = nil, openSeatsOnly: Bool = false,
        instructor: String? = nil, text: String? = nil, term: String? = nil
    ) {
        self.subjectIDs = subjectIDs
        self.level = level
        self.startsAtOrAfter = startsAtOrAfter
        self.endsAtOrBefore = endsAtOrBefore
        self.days = days
        self.openSeatsOnly = openSeatsOnly
        self.instructor = instructor
        self.text = text
        self.term = term
    }
}

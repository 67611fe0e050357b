/// A schedule build as a student asks for it, already checked field by field.
public struct BuildRequest: Sendable, Equatable {
    public struct RequestedCourse: Sendable, Equatable {
        public var label: CourseLabel
        public var optional: Bool
        /// Where it sat in the request (`courses[2]`), for errors.
        public var field: String

        public init(label: CourseLabel, optional: Bool, field: String) {
            self.label = label
            self.optional = optional
            self.field = field
        }
    }

    public var term: String
    public var courses: [RequestedCourse]
    public var constraints: BuildConstraints
    public var weights: RankingWeights
    public var limit: Int
    /// Leave out the sections the signed-in student may not register for, for reasons other
    /// than seats (holds, their window, prerequisites, restrictions).
    public var eligibleOnly: Bool
    /// Among otherwise equal options, put first those that share more sections with the
    /// signed-in student's friends, and name the friends in each.
    public var withFriends: Bool

    public init(
        term: String, courses: [RequestedCourse], constraints: BuildConstraints, weights: RankingWeights, limit: Int, eligibleOnly: Bool = false,
        withFriends: Bool = false
    ) {
        self.withFriends = withFriends
        self.term = term
        self.courses = courses
        self.constraints = constraints
        self.weights = weights
        self.limit = limit
        self.eligibleOnly = eligibleOnly
    }

    /// Limits on a build request.
    public static let maximumCourses = 15
    public static let maximumLimit = 200
    public static let defaultLimit = 20
    public static let maximumClassIDs = 100
    public static let maximumBlocked = 30
}

extension CourseOptions {
    /// Units as catalogs print them (`3.0`, `3`, `1-3`): the first number, or 0.
    public static func units(parsing text: String) -> Double {
        let number = text.prefix { $0.isNumber || $0 == "." }
        return Double(number) ?? 0
    }
}

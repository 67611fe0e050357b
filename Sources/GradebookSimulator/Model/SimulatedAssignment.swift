/// An assignment of a section (a `UserScore` in the protocol, less the scores of other users).
public struct SimulatedAssignment: Sendable, Equatable {
    /// `id`: unique among all assignments of the data set.
    public var id: Int
    /// `name`.
    public var name: String
    /// `abbreviated_name`.
    public var abbreviatedName: String
    /// `max_points`.
    public var maxPoints: Int
    /// `extra_credit_allowed` (served as 0/1).
    public var extraCreditAllowed: Bool
    /// `email_notification` (served as 0/1).
    public var emailNotification: Bool
    /// `sort_order`: `userscores` lists assignments by it.
    public var sortOrder: Int
    /// `compute_func`.
    public var computeFunc: Int
    /// `display_type`: 0 shows scores as numbers, 1 as "score/max", 2 as letter grades (demo convention).
    public var displayType: Int
    /// `due_date`, Unix seconds; absent from the JSON when nil.
    public var dueDate: Int?
    /// What students may do with this assignment (`student_permissions`; a student's `permissions`).
    public var studentPermissions: SimulatedPermissions
    /// Every submission of every user, in any order.
    public var scores: [SimulatedScore]

    /// An assignment.
    public init(
        id: Int, name: String, abbreviatedName: String, maxPoints: Int, extraCreditAllowed: Bool = false,
        emailNotification: Bool = true, sortOrder: Int, computeFunc: Int = 0, displayType: Int = 0,
        dueDate: Int?, studentPermissions: SimulatedPermissions = .student, scores: [SimulatedScore]
    ) {
        self.id = id
        self.name = name
        self.abbreviatedName = abbreviatedName
        self.maxPoints = maxPoints
        self.extraCreditAllowed = extraCreditAllowed
        self.emailNotification = emailNotification
        self.sortOrder = sortOrder
        self.computeFunc = computeFunc
        self.displayType = displayType
        self.dueDate = dueDate
        self.studentPermissions = studentPermissions
        self.scores = scores
    }
}

/// A permissions object's flags (`visible, view_files, view_stats, view_histogram,
/// view_permissions, create, change, view_computed_by`, each served as 0/1).
public struct SimulatedPermissions: Sendable, Equatable {
    /// `visible`: a student does not see an invisible assignment at all.
    public var visible: Bool
    /// `view_files`.
    public var viewFiles: Bool
    /// `view_stats`: a student may ask for `asnstats`.
    public var viewStats: Bool
    /// `view_histogram`.
    public var viewHistogram: Bool
    /// `view_permissions`.
    public var viewPermissions: Bool
    /// `create`.
    public var create: Bool
    /// `change`.
    public var change: Bool
    /// `view_computed_by`.
    public var viewComputedBy: Bool

    /// A permissions object.
    public init(
        visible: Bool, viewFiles: Bool, viewStats: Bool, viewHistogram: Bool, viewPermissions: Bool,
        create: Bool, change: Bool, viewComputedBy: Bool
    ) {
        self.visible = visible
        self.viewFiles = viewFiles
        self.viewStats = viewStats
        self.viewHistogram = viewHistogram
        self.viewPermissions = viewPermissions
        self.create = create
        self.change = change
        self.viewComputedBy = viewComputedBy
    }

    /// What staff may do: everything.
    public static let staff = SimulatedPermissions(
        visible: true, viewFiles: true, viewStats: true, viewHistogram: true, viewPermissions: true,
        create: true, change: true, viewComputedBy: true
    )
    /// What students usually may do: see the assignment, its files and statistics.
    public static let student = SimulatedPermissions(
        visible: true, viewFiles: true, viewStats: true, viewHistogram: true, viewPermissions: false,
        create: false, change: false, viewComputedBy: false
    )
}

/// One submission's score (an element of a UserScore's `scores`).
public struct SimulatedScore: Sendable, Equatable {
    /// `id`: unique among all scores of the data set.
    public var id: Int
    /// The username of the enrollment it belongs to (not served; `userscores` filters by it).
    public var username: String
    /// `score`.
    public var score: Double
    /// `display_score`: a string or a number.
    public var displayScore: DisplayScore
    /// `counts` (served as 0/1): exactly one submission per (user, assignment) counts.
    public var counts: Bool
    /// `post_date`, Unix seconds.
    public var postDate: Int
    /// `feedback`, if any.
    public var feedback: SimulatedFile?
    /// `student_work`, if any.
    public var studentWork: SimulatedFile?

    /// A score.
    public init(
        id: Int, username: String, score: Double, displayScore: DisplayScore, counts: Bool, postDate: Int,
        feedback: SimulatedFile? = nil, studentWork: SimulatedFile? = nil
    ) {
        self.id = id
        self.username = username
        self.score = score
        self.displayScore = displayScore
        self.counts = counts
        self.postDate = postDate
        self.feedback = feedback
        self.studentWork = studentWork
    }
}

/// A `display_score`, which the protocol serves as a string or a number.
public enum DisplayScore: Sendable, Equatable {
    /// Served as a JSON string, for example "A-" or "12/15".
    case text(String)
    /// Served as a JSON number.
    case number(Double)
}

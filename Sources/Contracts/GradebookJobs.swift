/// Jobs between the Gradebook and Push modules for grade notifications.
///
/// | kind | who enqueues | who handles |
/// |---|---|---|
/// | `gradebook.poll` | Push, for each student a device follows | Gradebook: fetch, snapshot, diff, store, enqueue `push.grade-changed` per change, in one transaction |
/// | `push.grade-changed` | Gradebook | Push: notify the devices following that student |
/// | `gradebook.poll-account` | Push, for each stored account whose owner wants grade alerts | Gradebook: the same, for the owner's own grades |
/// | `push.account-grade-changed` | Gradebook | Push: notify the owner's devices, by their preferences |
///
/// Polls have their own queue: they wait on upstream gradebooks (slow, rate-limited, sometimes
/// down), and notifications (seat alerts, offers) must not queue behind them.
public enum GradebookJobs {
    /// The queue polls wait in.
    public static let queue = "gradebook"

    public static let poll = JobKind<Poll>("gradebook.poll", queue: queue)
    public static let gradeChanged = JobKind<GradeChanged>("push.grade-changed", queue: PushJobs.queue)
    public static let pollAccount = JobKind<PollAccount>("gradebook.poll-account", queue: queue)
    public static let accountGradeChanged = JobKind<AccountGradeChanged>("push.account-grade-changed", queue: PushJobs.queue)
    public static let accountNeedsStudent = JobKind<AccountNeedsStudent>("push.gradebook-account-needs-student", queue: PushJobs.queue)

    /// A stored account the source stopped renewing (a Canvas refresh token refused): its owner
    /// is told once to connect it again. Never carries credentials.
    public struct AccountNeedsStudent: Codable, Sendable, Equatable {
        public var gradebookAccountId: Int64
        public var ownerAccountId: Int64

        public init(gradebookAccountId: Int64, ownerAccountId: Int64) {
            self.gradebookAccountId = gradebookAccountId
            self.ownerAccountId = ownerAccountId
        }
    }

    /// Poll a student's own stored gradebook account (`/v1/me/gradebook-accounts`) for their grades.
    public struct PollAccount: Codable, Sendable, Equatable {
        public var gradebookAccountId: Int64

        public init(gradebookAccountId: Int64) {
            self.gradebookAccountId = gradebookAccountId
        }
    }

    /// One change in a student's own gradebook. Never carries credentials.
    public struct AccountGradeChanged: Codable, Sendable, Equatable {
        public var gradebookAccountId: Int64
        /// The gateway account to tell.
        public var ownerAccountId: Int64
        public var change: GradeChanged.Change
        public var course: String
        public var assignment: String
        public var displayScore: String
        /// Stable per change: the notification's unique key.
        public var changeKey: String

        public init(
            gradebookAccountId: Int64, ownerAccountId: Int64, change: GradeChanged.Change, course: String, assignment: String,
            displayScore: String, changeKey: String
        ) {
            self.gradebookAccountId = gradebookAccountId
            self.ownerAccountId = ownerAccountId
            self.change = change
            self.course = course
            self.assignment = assignment
            self.displayScore = displayScore
            self.changeKey = changeKey
        }
    }

    /// Poll one student's scores with a device's stored gradebook account.
    public struct Poll: Codable, Sendable, Equatable {
        public var deviceAccountId: Int64
        /// The student whose scores to read (the Cal Poly `user`).
        public var student: String

        public init(deviceAccountId: Int64, student: String) {
            self.deviceAccountId = deviceAccountId
            self.student = student
        }
    }

    /// One change in a student's gradebook. Never carries credentials.
    public struct GradeChanged: Codable, Sendable, Equatable {
        public enum Change: String, Codable, Sendable { case newScore, changedScore, newAssignment }

        public var deviceAccountId: Int64
        public var student: String
        public var change: Change
        public var course: String
        public var assignment: String
        /// The score as students see it; empty for a new assignment.
        public var displayScore: String
        /// Stable per change (account, item, content hash): the notification's unique key.
        public var changeKey: String

        public init(deviceAccountId: Int64, student: String, change: Change, course: String, assignment: String, displayScore: String, changeKey: String) {
            self.deviceAccountId = deviceAccountId
            self.student = student
            self.change = change
            self.course = course
            self.assignment = assignment
            self.displayScore = displayScore
            self.changeKey = changeKey
        }
    }
}

/// A course section (`Section` in the protocol) with everything below it in the drill-down.
public struct SimulatedSection: Sendable, Equatable {
    /// `id`.
    public var id: Int
    /// `polynum`: the class number.
    public var polynum: Int
    /// `term`, for example 2152.
    public var term: Int
    /// `termname`, for example "Winter 2015".
    public var termName: String
    /// `dept`, for example "CPE".
    public var dept: String
    /// `course`: a string, for example "458".
    public var course: String
    /// `title`.
    public var title: String
    /// `first_day`, Unix seconds.
    public var firstDay: Int
    /// `last_day`, Unix seconds.
    public var lastDay: Int
    /// The enrollments (`?record=enrollments`).
    public var enrollments: [SimulatedEnrollment]
    /// The assignments, each with every user's submissions (`?record=userscores`).
    public var assignments: [SimulatedAssignment]

    /// A section.
    public init(
        id: Int, polynum: Int, term: Int, termName: String, dept: String, course: String, title: String,
        firstDay: Int, lastDay: Int, enrollments: [SimulatedEnrollment], assignments: [SimulatedAssignment]
    ) {
        self.id = id
        self.polynum = polynum
        self.term = term
        self.termName = termName
        self.dept = dept
        self.course = course
        self.title = title
        self.firstDay = firstDay
        self.lastDay = lastDay
        self.enrollments = enrollments
        self.assignments = assignments
    }

    /// The enrollment of a username in this section, if any.
    public func enrollment(username: String) -> SimulatedEnrollment? {
        enrollments.first { $0.username == username }
    }
}

/// A student's enrollment in a section (`Enrollment` in the protocol).
public struct SimulatedEnrollment: Sendable, Equatable {
    /// `id`.
    public var id: Int
    /// `emplid`.
    public var emplid: Int
    /// `role` (0 in the demo data: a student).
    public var role: Int
    /// `username`: also the student's login.
    public var username: String
    /// `csc_username`.
    public var cscUsername: String
    /// `bb_id` (Blackboard id).
    public var bbId: String
    /// `first_name`.
    public var firstName: String
    /// `middle_name` (may be empty).
    public var middleName: String
    /// `last_name`.
    public var lastName: String
    /// `major`.
    public var major: String
    /// `dropped` (0/1).
    public var dropped: Int
    /// `admin_failure` (0/1).
    public var adminFailure: Int
    /// `ferpa` (0/1).
    public var ferpa: Int
    /// `age`.
    public var age: Int
    /// `email_level`.
    public var emailLevel: Int
    /// `picture`: its `url` is made when served (a `file_download` path under the prefix).
    public var picture: SimulatedFile

    /// An enrollment.
    public init(
        id: Int, emplid: Int, role: Int = 0, username: String, cscUsername: String, bbId: String,
        firstName: String, middleName: String = "", lastName: String, major: String,
        dropped: Int = 0, adminFailure: Int = 0, ferpa: Int = 0, age: Int, emailLevel: Int = 1,
        picture: SimulatedFile
    ) {
        self.id = id
        self.emplid = emplid
        self.role = role
        self.username = username
        self.cscUsername = cscUsername
        self.bbId = bbId
        self.firstName = firstName
        self.middleName = middleName
        self.lastName = lastName
        self.major = major
        self.dropped = dropped
        self.adminFailure = adminFailure
        self.ferpa = ferpa
        self.age = age
        self.emailLevel = emailLevel
        self.picture = picture
    }
}

/// A file object (`picture`, `feedback`, `student_work`): `{id, file_extension, mimetype, url}`.
/// The `url` is not stored: it is made when served, relative to the simulator's prefix.
public struct SimulatedFile: Sendable, Equatable {
    /// `id`: unique among all files of the data set (it is the `file` parameter of `file_download`).
    public var id: Int
    /// `file_extension`, for example "pdf".
    public var fileExtension: String
    /// `mimetype`, for example "application/pdf".
    public var mimetype: String

    /// A file object.
    public init(id: Int, fileExtension: String, mimetype: String) {
        self.id = id
        self.fileExtension = fileExtension
        self.mimetype = mimetype
    }
}

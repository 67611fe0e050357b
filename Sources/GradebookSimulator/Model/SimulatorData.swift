/// Everything a simulated gradebook serves: its sections (with their enrollments, assignments
/// and scores) and the logins that may read them.
///
/// ``demo`` is the fixed data set documented in `docs/gradebook-simulator.md`; tests and the
/// gateway may build their own.
public struct SimulatorData: Sendable, Equatable {
    /// The sections, in the order `?record=sections` lists them.
    public var sections: [SimulatedSection]
    /// The logins. A student login sees the sections whose enrollments carry its username.
    public var accounts: [SimulatedAccount]

    /// Data made of these sections and logins.
    public init(sections: [SimulatedSection], accounts: [SimulatedAccount]) {
        self.sections = sections
        self.accounts = accounts
    }

    /// The section of a term and course, if there is one.
    public func section(term: Int, course: String) -> SimulatedSection? {
        sections.first { $0.term == term && $0.course == course }
    }
}

/// A login of the simulated gradebook (HTTP Basic credentials).
public struct SimulatedAccount: Sendable, Equatable {
    /// What a login may see.
    public enum Role: String, Sendable, Equatable {
        /// Every section, every enrollment, any user's scores and every assignment's statistics
        /// (as the real server's `test` account and instructors could).
        case staff
        /// The sections it is enrolled in, only its own enrollment and scores, and the statistics of
        /// assignments whose student permissions allow `view_stats`.
        case student
    }

    /// The Basic-auth user name; for a student, the enrollment's `username`.
    public var username: String
    /// The Basic-auth password.
    public var password: String
    /// What the login may see.
    public var role: Role

    /// A login.
    public init(username: String, password: String, role: Role) {
        self.username = username
        self.password = password
        self.role = role
    }
}

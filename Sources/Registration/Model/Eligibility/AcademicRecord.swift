/// A student's level of study.
public enum StudentLevel: String, Sendable, Codable, CaseIterable {
    case undergraduate, graduate
}

/// A student's class standing.
public enum ClassStanding: String, Sendable, Codable, CaseIterable {
    case freshman, sophomore, junior, senior, graduate
}

/// One course in a student's history: which, when, and the grade (`IP` while in progress).
public struct CourseAttempt: Sendable, Codable, Equatable {
    /// The course as the catalog labels it (`CS 310`).
    public var course: String
    public var term: String
    public var grade: Grade

    public init(course: String, term: String, grade: Grade) {
        self.course = course
        self.term = term
        self.grade = grade
    }
}

/// What the registrar knows of a student that the rules ask about: level, standing, majors,
/// a personal unit limit and the courses taken. A student with no record has none of these,
/// and every rule that needs one refuses them.
public struct AcademicRecord: Sendable, Codable, Equatable {
    public var level: StudentLevel
    public var standing: ClassStanding
    public var majors: [String]
    /// Overrides the term's unit limit for this student.
    public var maxUnits: Double?
    public var history: [CourseAttempt] {
        didSet { gradesByCourse = Self.index(history) }
    }
    /// Every course's grades, by course: built once with the history (a stored record is parsed
    /// once and kept, so the rules that ask of many courses pay a lookup each).
    public private(set) var gradesByCourse: [CourseLabelKey: [Grade]]

    public init(level: StudentLevel, standing: ClassStanding, majors: [String] = [], maxUnits: Double? = nil, history: [CourseAttempt] = []) {
        self.level = level
        self.standing = standing
        self.majors = majors
        self.maxUnits = maxUnits
        self.history = history
        self.gradesByCourse = Self.index(history)
    }

    enum CodingKeys: String, CodingKey { case level, standing, majors, maxUnits, history }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            level: try container.decode(StudentLevel.self, forKey: .level), standing: try container.decode(ClassStanding.self, forKey: .standing),
            majors: try container.decode([String].self, forKey: .majors), maxUnits: try container.decodeIfPresent(Double.self, forKey: .maxUnits),
            history: try container.decode([CourseAttempt].self, forKey: .history)
        )
    }

    static func index(_ history: [CourseAttempt]) -> [CourseLabelKey: [Grade]] {
        Dictionary(grouping: history, by: { CourseLabelKey($0.course) }).mapValues { $0.map(\.grade) }
    }

    /// The student's grades in `course` (every attempt).
    public func grades(in course: String) -> [Grade] { gradesByCourse[CourseLabelKey(course)] ?? [] }
}

/// A course label compared as registrars mean it: `cs 310`, `CS  310` and `CS 310` are one course.
public struct CourseLabelKey: Hashable, Sendable {
    public let value: String

    public init(_ label: String) {
        value = Self.isNormalized(label) ? label : label.uppercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// Whether `label` is already in the key's form (ASCII without lower case, single spaces
    /// between words): the common case, since the gateway stores labels so, answered without
    /// building a new string.
    static func isNormalized(_ label: String) -> Bool {
        var previousWasSpace = true
        for byte in label.utf8 {
            switch byte {
            case UInt8(ascii: " "):
                if previousWasSpace { return false }
                previousWasSpace = true
            case UInt8(ascii: "a")...UInt8(ascii: "z"), 0..<0x20, 0x7F...: return false
            default: previousWasSpace = false
            }
        }
        return !previousWasSpace || label.isEmpty
    }
}

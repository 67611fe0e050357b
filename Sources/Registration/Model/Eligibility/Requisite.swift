/// A prerequisite expression: a course with an optional minimum grade, or all / any of other
/// expressions. In JSON: `{"course": "CS 310", "minGrade": "C"}`, `{"all": [...]}`, `{"any": [...]}`.
public indirect enum Requisite: Sendable, Equatable {
    case course(String, minGrade: Grade?)
    case all([Requisite])
    case any([Requisite])

    /// The part of the expression `grades` leaves unmet, or nil when it is met:
    /// - a course: itself, unless one of the student's grades in it meets its minimum;
    /// - `all`: the unmet parts of its members (one member unmet: that member alone);
    /// - `any`: nil when one member is met, otherwise itself (every alternative is open).
    /// An empty `all` is met; an empty `any` is never met.
    public func unmet(grades: (String) -> [Grade]) -> Requisite? {
        switch self {
        case .course(let course, let minimum):
            return grades(course).contains { $0.satisfies(minimum: minimum) } ? nil : self
        case .all(let members):
            let missing = members.compactMap { $0.unmet(grades: grades) }
            if missing.isEmpty { return nil }
            return missing.count == 1 ? missing[0] : .all(missing)
        case .any(let members):
            return members.contains { $0.unmet(grades: grades) == nil } ? nil : self
        }
    }

    /// Every course the expression names.
    public var courses: [String] {
        switch self {
        case .course(let course, _): [course]
        case .all(let members), .any(let members): members.flatMap(\.courses)
        }
    }

    /// How many nodes the expression has (bounded on input).
    public var size: Int {
        switch self {
        case .course: 1
        case .all(let members), .any(let members): 1 + members.reduce(0) { $0 + $1.size }
        }
    }

    /// The expression in words: `CS 310 with C or better`, `(MATH 245 or MATH 254 with B- or better)`.
    public var sentence: String {
        switch self {
        case .course(let course, let minimum): minimum.map { "\(course) with \($0.rawValue) or better" } ?? course
        case .all(let members): members.map { $0.isLeaf ? $0.sentence : "(\($0.sentence))" }.joined(separator: " and ")
        case .any(let members): members.map { $0.isLeaf ? $0.sentence : "(\($0.sentence))" }.joined(separator: " or ")
        }
    }

    var isLeaf: Bool { if case .course = self { true } else { false } }
}

extension Requisite: Codable {
    enum CodingKeys: String, CodingKey { case course, minGrade, all, any }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let present = [CodingKeys.course, .all, .any].filter { container.contains($0) }
        guard present.count == 1 else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "A requisite has exactly one of course, all or any."))
        }
        switch present[0] {
        case .course: self = .course(try container.decode(String.self, forKey: .course), minGrade: try container.decodeIfPresent(Grade.self, forKey: .minGrade))
        case .all: self = .all(try container.decode([Requisite].self, forKey: .all))
        default: self = .any(try container.decode([Requisite].self, forKey: .any))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .course(let course, let minimum):
            try container.encode(course, forKey: .course)
            try container.encodeIfPresent(minimum, forKey: .minGrade)
        case .all(let members): try container.encode(members, forKey: .all)
        case .any(let members): try container.encode(members, forKey: .any)
        }
    }
}

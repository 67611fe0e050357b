import HTTPTypes

/// `POST _admin/scores`: a new submission. `counts` defaults to true for a user's first
/// submission of an assignment and false otherwise; `displayScore` to the assignment's display
/// type (number, "score/max" or letter); `postDate` to now.
struct NewScoreInput: Decodable {
    let term: Int
    let course: String
    let user: String
    let assignment: Int
    let score: Double
    let displayScore: DisplayScore?
    let counts: Bool?
    let postDate: Int?
}

/// `PATCH _admin/scores/{id}`: what to change.
struct ScorePatch: Decodable {
    let score: Double?
    let displayScore: DisplayScore?
    let counts: Bool?
    let postDate: Int?
}

/// An admin request the data refuses: its status and message.
struct AdminFailure: Error, Equatable {
    let status: HTTPResponse.Status
    let message: String
}

/// A score together with where it is, to serve it.
struct LocatedScore {
    let score: SimulatedScore
    let enrollment: SimulatedEnrollment
    let section: SimulatedSection
}

/// Adds and changes submissions, keeping exactly one that counts per (user, assignment).
enum ScoreEditing {
    static func add(_ input: NewScoreInput, now: Int, to data: inout SimulatorData) throws(AdminFailure) -> LocatedScore {
        guard let s = data.sections.firstIndex(where: { $0.term == input.term && $0.course == input.course }) else {
            throw AdminFailure(status: .notFound, message: "No section \(input.term) \(input.course)")
        }
        guard let enrollment = data.sections[s].enrollment(username: input.user) else {
            throw AdminFailure(status: .notFound, message: "\(input.user) is not enrolled in \(input.term) \(input.course)")
        }
        guard let a = data.sections[s].assignments.firstIndex(where: { $0.id == input.assignment }) else {
            throw AdminFailure(status: .notFound, message: "No assignment \(input.assignment) in \(input.term) \(input.course)")
        }
        var assignment = data.sections[s].assignments[a]
        let isFirst = !assignment.scores.contains { $0.username == input.user }
        let counts = input.counts ?? isFirst
        if isFirst, !counts {
            throw AdminFailure(status: .conflict, message: "A user's only submission of an assignment must count")
        }
        let nextID = (data.sections.flatMap { $0.assignments.flatMap { $0.scores.map(\.id) } }.max() ?? 1000) + 1
        let score = SimulatedScore(
            id: nextID, username: input.user, score: input.score,
            displayScore: input.displayScore ?? DemoScores.display(input.score, of: assignment),
            counts: counts, postDate: input.postDate ?? now
        )
        if counts { uncount(user: input.user, in: &assignment) }
        assignment.scores.append(score)
        data.sections[s].assignments[a] = assignment
        return LocatedScore(score: score, enrollment: enrollment, section: data.sections[s])
    }

    static func patch(_ id: Int, with patch: ScorePatch, in data: inout SimulatorData) throws(AdminFailure) -> LocatedScore {
        for s in data.sections.indices {
            for a in data.sections[s].assignments.indices {
                var assignment = data.sections[s].assignments[a]
                guard let k = assignment.scores.firstIndex(where: { $0.id == id }) else { continue }
                let user = assignment.scores[k].username
                if let value = patch.score { assignment.scores[k].score = value }
                if let value = patch.displayScore { assignment.scores[k].displayScore = value }
                if let value = patch.postDate { assignment.scores[k].postDate = value }
                if patch.counts == true, !assignment.scores[k].counts {
                    uncount(user: user, in: &assignment)
                    assignment.scores[k].counts = true
                } else if patch.counts == false, assignment.scores[k].counts {
                    // Another submission must count instead: the newest other one.
                    let others = assignment.scores.indices.filter { $0 != k && assignment.scores[$0].username == user }
                    guard let newest = others.max(by: {
                        (assignment.scores[$0].postDate, assignment.scores[$0].id) < (assignment.scores[$1].postDate, assignment.scores[$1].id)
                    }) else {
                        throw AdminFailure(status: .conflict, message: "A user's only submission of an assignment must count")
                    }
                    assignment.scores[k].counts = false
                    assignment.scores[newest].counts = true
                }
                let score = assignment.scores[k]
                data.sections[s].assignments[a] = assignment
                let section = data.sections[s]
                guard let enrollment = section.enrollment(username: user) else {
                    throw AdminFailure(status: .conflict, message: "Score \(id) belongs to no enrollment")
                }
                return LocatedScore(score: score, enrollment: enrollment, section: section)
            }
        }
        throw AdminFailure(status: .notFound, message: "No score \(id)")
    }

    private static func uncount(user: String, in assignment: inout SimulatedAssignment) {
        for k in assignment.scores.indices where assignment.scores[k].username == user {
            assignment.scores[k].counts = false
        }
    }
}

extension DisplayScore: Decodable {
    /// A JSON string or number.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            self = .text(text)
        } else {
            self = .number(try container.decode(Double.self))
        }
    }
}

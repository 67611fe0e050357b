/// The demo submissions, made by formula so the data is the same on every run.
///
/// Each (student, assignment) gets no submission (about one in seven), or one to three. The best
/// one counts (ties: the oldest), so the score that counts is often not the newest. Some
/// submissions carry feedback or submitted work.
enum DemoScores {
    /// The sections with their scores filled in, score ids numbered from 1001 in order.
    static func fill(_ sections: [SimulatedSection]) -> [SimulatedSection] {
        var nextID = 1001
        var filled = sections
        for s in filled.indices {
            for j in filled[s].assignments.indices {
                var assignment = filled[s].assignments[j]
                for (i, enrollment) in filled[s].enrollments.enumerated() where enrollment.dropped == 0 {
                    assignment.scores += submissions(
                        of: enrollment.username, to: assignment, student: i, assignment: j, section: s,
                        fallbackDue: filled[s].lastDay - 86_400, nextID: &nextID
                    )
                }
                filled[s].assignments[j] = assignment
            }
        }
        return filled
    }

    private static func submissions(
        of username: String, to assignment: SimulatedAssignment, student i: Int, assignment j: Int, section s: Int,
        fallbackDue: Int, nextID: inout Int
    ) -> [SimulatedScore] {
        if (i + 2 * j + s) % 7 == 5 { return [] }
        let count = 1 + (i + j + s) % 3
        let max = Double(assignment.maxPoints)
        let due = assignment.dueDate ?? fallbackDue
        var scores: [SimulatedScore] = (0..<count).map { k in
            let fraction = 0.55 + 0.09 * Double((i * 5 + j * 3 + k * 4 + s) % 6)
            let score = (fraction * max * 2).rounded() / 2
            let id = nextID + k
            return SimulatedScore(
                id: id, username: username, score: score,
                displayScore: display(score, of: assignment), counts: false,
                postDate: due - (count - 1 - k) * 86_400 - 3_600 * (i + 1),
                feedback: (i + j + k) % 3 == 0 ? SimulatedFile(id: 50_000 + id, fileExtension: "pdf", mimetype: "application/pdf") : nil,
                studentWork: (i + k + s) % 2 == 0 ? SimulatedFile(id: 60_000 + id, fileExtension: "zip", mimetype: "application/zip") : nil
            )
        }
        nextID += count
        // The best counts; on a tie the oldest (first) one.
        var best = 0
        for k in scores.indices where scores[k].score > scores[best].score { best = k }
        scores[best].counts = true
        return scores
    }

    /// A number (display type 0), "score/max" (1) or a letter grade (2).
    static func display(_ score: Double, of assignment: SimulatedAssignment) -> DisplayScore {
        switch assignment.displayType {
        case 1: return .text("\(formatted(score))/\(assignment.maxPoints)")
        case 2: return .text(letter(score / Double(assignment.maxPoints)))
        default: return .number(score)
        }
    }

    /// "12" for 12.0, "12.5" for 12.5.
    static func formatted(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    static func letter(_ fraction: Double) -> String {
        let scale: [(Double, String)] = [
            (0.93, "A"), (0.90, "A-"), (0.87, "B+"), (0.83, "B"), (0.80, "B-"),
            (0.77, "C+"), (0.73, "C"), (0.70, "C-"), (0.60, "D"),
        ]
        return scale.first { fraction >= $0.0 }?.1 ?? "F"
    }
}

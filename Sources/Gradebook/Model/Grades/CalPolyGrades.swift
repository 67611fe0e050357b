import Foundation

/// Cal Poly sections and assignments as ``CourseGrades``: a course per section (`term/course`),
/// each assignment's counting score (nil while none is posted). Cal Poly computes no current
/// score or grade, so those are nil.
public enum CalPolyGrades {
    public static func course(_ section: GradebookSection, assignments: [GradebookAssignment]) -> CourseGrades {
        let code = "\(section.department) \(section.course)".trimmingCharacters(in: .whitespaces)
        return CourseGrades(
            id: "\(section.term)/\(section.course)", name: section.title.isEmpty ? code : section.title, code: code.isEmpty ? nil : code,
            currentScore: nil, currentGrade: nil, assignments: assignments.map(assignment)
        )
    }

    public static func assignment(_ assignment: GradebookAssignment) -> AssignmentGrade {
        let counting = assignment.scores.first { $0.counts } ?? assignment.scores.first
        return AssignmentGrade(
            id: String(assignment.id), name: assignment.name, score: counting?.points, pointsPossible: assignment.maxPoints,
            dueAt: assignment.dueAt, gradedAt: counting?.postedAt, state: counting?.points != nil ? .graded : counting == nil ? .unsubmitted : .submitted
        )
    }
}

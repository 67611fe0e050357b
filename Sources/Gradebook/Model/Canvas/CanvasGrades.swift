public import Foundation

/// Canvas's courses and assignments as ``CourseGrades``: the student enrollment's computed
/// current score and grade, each assignment's posted score (nil, never 0, while unposted), and
/// the submission's state, excused, missing and late first, as Canvas says them.
public enum CanvasGrades {
    public static func course(_ course: CanvasRecords.Course, assignments: [CanvasRecords.Assignment]) -> CourseGrades {
        let enrollment = course.studentEnrollment
        return CourseGrades(
            id: course.id.value, name: course.name ?? course.courseCode ?? "Course \(course.id)", code: course.courseCode,
            currentScore: enrollment?.computedCurrentScore, currentGrade: enrollment?.computedCurrentGrade,
            assignments: assignments.map(assignment)
        )
    }

    public static func assignment(_ assignment: CanvasRecords.Assignment) -> AssignmentGrade {
        let submission = assignment.submission
        return AssignmentGrade(
            id: assignment.id.value, name: assignment.name ?? "Assignment \(assignment.id)",
            score: submission?.excused == true ? nil : submission?.score, pointsPossible: assignment.pointsPossible,
            dueAt: date(assignment.dueAt), gradedAt: date(submission?.gradedAt), state: state(submission)
        )
    }

    static func state(_ submission: CanvasRecords.Submission?) -> AssignmentGrade.State {
        guard let submission else { return .unsubmitted }
        if submission.excused == true { return .excused }
        if submission.missing == true { return .missing }
        if submission.late == true { return .late }
        return submission.workflowState.flatMap(AssignmentGrade.State.init(rawValue:)) ?? .unsubmitted
    }

    /// Canvas's ISO 8601 times (`2026-09-01T06:59:59Z`, with or without fractions); nil for
    /// anything else.
    static func date(_ text: String?) -> Date? {
        guard let text else { return nil }
        if let date = try? Date(text, strategy: .iso8601) { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

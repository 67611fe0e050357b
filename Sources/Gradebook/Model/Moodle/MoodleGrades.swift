public import Foundation

/// Moodle's courses and user-report grade items as ``CourseGrades``:
/// - an activity's or a manual item's score is `graderaw` (nil, never 0, while ungraded), out of
///   `grademax`, with the teacher's `feedback` as plain text;
/// - an item the teacher hid (`gradeishidden`) is never shown, nor is any sign of it;
/// - the course total (`itemtype: course`) is the course's current score (a percentage) and
///   grade, unless it is hidden; category totals are not assignments;
/// - a course whose grades the student may not see is listed without them, saying why.
public enum MoodleGrades {
    /// The most characters of feedback kept.
    public static let maximumFeedbackCharacters = 2000

    public static func course(
        _ course: MoodleRecords.Course, items: [MoodleRecords.GradeItem], total: MoodleRecords.CourseTotal? = nil
    ) -> CourseGrades {
        let visible = items.filter { $0.gradeishidden != true }
        let courseTotal = visible.first { $0.itemtype == "course" }
        let grade = total?.grade.flatMap(meaningful) ?? courseTotal?.gradeformatted.flatMap(meaningful)
        return CourseGrades(
            id: String(course.id), name: name(course), code: course.shortname,
            currentScore: courseTotal.flatMap(percentage), currentGrade: grade,
            assignments: visible.filter { $0.itemtype == "mod" || $0.itemtype == "manual" }.map(assignment)
        )
    }

    /// A course listed without its grades, and why.
    public static func withheld(_ course: MoodleRecords.Course, _ reason: CourseGrades.GradesWithheld) -> CourseGrades {
        CourseGrades(
            id: String(course.id), name: name(course), code: course.shortname, currentScore: nil, currentGrade: nil, assignments: [],
            gradesWithheld: reason
        )
    }

    static func name(_ course: MoodleRecords.Course) -> String {
        course.fullname ?? course.displayname ?? course.shortname ?? "Course \(course.id)"
    }

    public static func assignment(_ item: MoodleRecords.GradeItem) -> AssignmentGrade {
        let state: AssignmentGrade.State = item.graderaw != nil ? .graded : item.gradedatesubmitted != nil ? .submitted : .unsubmitted
        return AssignmentGrade(
            id: String(item.id), name: item.itemname.flatMap(meaningful) ?? "Item \(item.id)", score: item.graderaw,
            pointsPossible: item.grademax, dueAt: nil, gradedAt: date(item.gradedategraded), state: state,
            feedback: item.feedback.flatMap(plainText)
        )
    }

    /// The course total as a percentage: `percentageformatted` (`85.00 %`), else `graderaw` of
    /// `grademax` above `grademin`; nil while ungraded.
    static func percentage(_ total: MoodleRecords.GradeItem) -> Double? {
        guard let raw = total.graderaw else { return nil }
        if let text = total.percentageformatted,
           let number = Double(text.replacingOccurrences(of: "%", with: "").replacingOccurrences(of: ",", with: ".").trimmingCharacters(in: .whitespaces)) {
            return number
        }
        guard let max = total.grademax, max > (total.grademin ?? 0) else { return nil }
        let min = total.grademin ?? 0
        return ((raw - min) / (max - min) * 10_000).rounded() / 100
    }

    /// Moodle writes `-` for nothing yet.
    static func meaningful(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty || trimmed == "-" ? nil : trimmed
    }

    /// Moodle's feedback is HTML: its text, tags dropped, entities of the common kinds read,
    /// whitespace collapsed, at most ``maximumFeedbackCharacters``; nil when empty.
    static func plainText(_ html: String) -> String? {
        var text = ""
        var inTag = false
        for character in html.prefix(20_000) {
            if character == "<" { inTag = true; text.append(" "); continue }
            if character == ">" { inTag = false; continue }
            if !inTag { text.append(character) }
        }
        for (entity, value) in [("&nbsp;", " "), ("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&amp;", "&")] {
            text = text.replacingOccurrences(of: entity, with: value)
        }
        let collapsed = text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        return collapsed.isEmpty ? nil : String(collapsed.prefix(maximumFeedbackCharacters))
    }

    /// A Moodle time (seconds since 1970; 0 is none).
    static func date(_ seconds: Int64?) -> Date? {
        guard let seconds, seconds > 0 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}

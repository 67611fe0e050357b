public import Foundation

/// Reads the Cal Poly gradebook's JSON records (docs: `../shared/design/GRADEBOOK_PROTOCOL.md`)
/// into the normalised records. Lenient where real servers and clients disagree: numbers may
/// come as strings, `counts` as 0/1 or a boolean, `display_score` as a string or a number,
/// submitted work under `student_work` or `submitted_work`.
public enum CalPolyFormat {
    /// What a record answered, when it was not the record.
    public enum Refusal: Error, Sendable, Equatable {
        /// The upstream's `"Incorrect permission ..."` string.
        case permission(String)
        /// Not JSON, or not the record's shape.
        case malformed(String)
    }

    public static func sections(_ data: Data) throws(Refusal) -> [GradebookSection] {
        try list(data, key: "sections").map { item in
            GradebookSection(
                id: int(item["id"]) ?? 0, polynum: int(item["polynum"]) ?? 0, term: int(item["term"]) ?? 0,
                termName: string(item["termname"]), department: string(item["dept"]), course: string(item["course"]),
                title: string(item["title"]), firstDay: date(item["first_day"]), lastDay: date(item["last_day"])
            )
        }
    }

    public static func enrollments(_ data: Data) throws(Refusal) -> [GradebookEnrollment] {
        try list(data, key: "enrollments").map { item in
            let picture = item["picture"] as? [String: Any]
            return GradebookEnrollment(
                id: int(item["id"]) ?? 0, username: string(item["username"]), firstName: string(item["first_name"]),
                lastName: string(item["last_name"]), role: Int(int(item["role"]) ?? 0), dropped: bool(item["dropped"]),
                major: string(item["major"]), pictureURL: picture.flatMap { $0["url"] as? String }
            )
        }
    }

    public static func userScores(_ data: Data) throws(Refusal) -> [GradebookAssignment] {
        try list(data, key: "userscores").map { item in
            let scores = (item["scores"] as? [Any] ?? []).compactMap { $0 as? [String: Any] }.map { score in
                GradebookScore(
                    id: int(score["id"]) ?? 0, points: double(score["score"]), displayScore: display(score["display_score"], fallback: score["score"]),
                    counts: bool(score["counts"]), postedAt: date(score["post_date"]), feedback: file(score["feedback"]),
                    submittedWork: file(score["student_work"] ?? score["submitted_work"])
                )
            }
            return GradebookAssignment(
                id: int(item["id"]) ?? 0, name: string(item["name"]), abbreviatedName: string(item["abbreviated_name"]),
                maxPoints: double(item["max_points"]), dueAt: date(item["due_date"]), sortOrder: Int(int(item["sort_order"]) ?? 0),
                extraCreditAllowed: bool(item["extra_credit_allowed"]), scores: scores
            )
        }
    }

    public static func assignmentStats(_ data: Data) throws(Refusal) -> GradebookAssignmentStats {
        let item = try object(data, key: "asnstats")
        return GradebookAssignmentStats(
            id: int(item["id"]) ?? 0, points: double(item["points"]), minScore: double(item["min_score"]),
            maxScore: double(item["max_score"]), meanScore: double(item["mean_score"]), medianScore: double(item["median_score"]),
            standardDeviation: double(item["std_dev"]), attempts: Int(int(item["attempts"]) ?? 0),
            uniqueStudents: Int(int(item["unique_students"]) ?? 0)
        )
    }

    /// Whether a body is the upstream's permission refusal (a JSON string `"Incorrect permission..."`).
    public static func permissionRefusal(_ data: Data) -> String? {
        guard let text = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) as? String,
              text.hasPrefix("Incorrect permission") else { return nil }
        return text
    }

    private static func root(_ data: Data) throws(Refusal) -> Any {
        if let refusal = permissionRefusal(data) { throw .permission(refusal) }
        guard let value = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            throw .malformed("the upstream's answer is not JSON")
        }
        return value
    }

    private static func list(_ data: Data, key: String) throws(Refusal) -> [[String: Any]] {
        guard let object = try root(data) as? [String: Any], let items = object[key] as? [Any] else {
            throw .malformed("the upstream's answer has no `\(key)` list")
        }
        return items.compactMap { $0 as? [String: Any] }
    }

    private static func object(_ data: Data, key: String) throws(Refusal) -> [String: Any] {
        guard let object = try root(data) as? [String: Any], let item = object[key] as? [String: Any] else {
            throw .malformed("the upstream's answer has no `\(key)` object")
        }
        return item
    }

    static func int(_ value: Any?) -> Int64? {
        if let number = value as? NSNumber { return number.int64Value }
        if let text = value as? String { return Int64(text.trimmingCharacters(in: .whitespaces)) }
        return nil
    }

    static func double(_ value: Any?) -> Double? {
        if let number = value as? NSNumber { return number.doubleValue }
        if let text = value as? String { return Double(text.trimmingCharacters(in: .whitespaces)) }
        return nil
    }

    static func string(_ value: Any?) -> String {
        if let text = value as? String { return text }
        if let number = value as? NSNumber { return number.stringValue }
        return ""
    }

    static func bool(_ value: Any?) -> Bool {
        if let number = value as? NSNumber { return number.intValue != 0 }
        if let text = value as? String { return ["1", "true", "yes"].contains(text.lowercased()) }
        return false
    }

    static func date(_ value: Any?) -> Date? {
        guard let seconds = double(value), seconds > 0 else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    /// `display_score` as text: a string as is, a number without a needless `.0`.
    static func display(_ value: Any?, fallback: Any?) -> String {
        if let text = value as? String { return text }
        guard let number = double(value) ?? double(fallback) else { return "" }
        return number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }

    static func file(_ value: Any?) -> GradebookFile? {
        guard let item = value as? [String: Any] else { return nil }
        return GradebookFile(
            id: int(item["id"]), name: item["name"] as? String ?? item["file_name"] as? String,
            mimeType: item["mimetype"] as? String, url: item["url"] as? String
        )
    }
}

public import Catalog
public import Foundation

/// Ranking data to import (PlanetTerp-style): average GPAs of courses and ratings of
/// instructors, parsed from JSON or CSV. Rows that cannot be used are in ``rejected`` with
/// their reasons; the rest import. Formats are documented in docs/scheduling.md.
public struct RatingsDocument: Sendable, Equatable {
    public struct CourseGPA: Sendable, Equatable {
        /// `CMSC 131` as given (keyed case- and space-insensitively).
        public var course: String
        public var averageGPA: Double

        public init(course: String, averageGPA: Double) {
            self.course = course
            self.averageGPA = averageGPA
        }
    }

    public struct InstructorRating: Sendable, Equatable {
        public var name: String
        public var rating: Double

        public init(name: String, rating: Double) {
            self.name = name
            self.rating = rating
        }
    }

    public var courses: [CourseGPA] = []
    public var instructors: [InstructorRating] = []
    public var rejected: [RejectedRow] = []

    public init(courses: [CourseGPA] = [], instructors: [InstructorRating] = []) {
        self.courses = courses
        self.instructors = instructors
    }

    /// The most rows one import takes.
    public static let maximumRows = 200_000

    /// Parses JSON: `{"courses": [{"course": "CMSC 131", "averageGPA": 3.1}], "instructors":
    /// [{"name": "Jane Doe", "rating": 4.2}]}`. PlanetTerp's own field names are accepted too:
    /// `course_id` / `average_gpa` for courses, `professor` / `average_rating` for instructors.
    public static func parseJSON(_ data: Data) throws(RatingsFormatError) -> RatingsDocument {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw RatingsFormatError("The file is not a JSON object with `courses` and `instructors` lists.")
        }
        var document = RatingsDocument()
        let courseRows = object["courses"] as? [Any] ?? []
        let instructorRows = object["instructors"] as? [Any] ?? object["professors"] as? [Any] ?? []
        guard object["courses"] != nil || object["instructors"] != nil || object["professors"] != nil else {
            throw RatingsFormatError("The JSON object has neither a `courses` nor an `instructors` list.")
        }
        guard courseRows.count + instructorRows.count <= maximumRows else {
            throw RatingsFormatError("At most \(maximumRows) rows per import.")
        }
        for (index, row) in courseRows.enumerated() {
            let fields = row as? [String: Any] ?? [:]
            document.addCourse(
                label: "courses[\(index)]",
                course: (fields["course"] ?? fields["course_id"] ?? fields["name"]) as? String,
                value: number(fields["averageGPA"] ?? fields["average_gpa"] ?? fields["gpa"])
            )
        }
        for (index, row) in instructorRows.enumerated() {
            let fields = row as? [String: Any] ?? [:]
            document.addInstructor(
                label: "instructors[\(index)]",
                name: (fields["name"] ?? fields["professor"] ?? fields["instructor"]) as? String,
                value: number(fields["rating"] ?? fields["average_rating"])
            )
        }
        return document
    }

    /// Parses CSV with a header row naming its columns: `course,average_gpa` for courses,
    /// `instructor,rating` for instructors, or `kind,name,value` with `course` or `instructor`
    /// in the `kind` column to mix both. Quoted fields may hold commas and doubled quotes.
    public static func parseCSV(_ text: String) throws(RatingsFormatError) -> RatingsDocument {
        var rows = CSVRows.parse(text)
        guard !rows.isEmpty else { throw RatingsFormatError("The CSV file is empty.") }
        let header = rows.removeFirst().map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard rows.count <= maximumRows else { throw RatingsFormatError("At most \(maximumRows) rows per import.") }
        func column(_ names: [String]) -> Int? { header.firstIndex { names.contains($0) } }
        let kindColumn = column(["kind", "type"])
        let courseColumn = column(["course", "course_id", "course_label"])
        let gpaColumn = column(["average_gpa", "averagegpa", "gpa"])
        let instructorColumn = column(["instructor", "professor", "name"])
        let ratingColumn = column(["rating", "average_rating"])
        let valueColumn = column(["value"])
        var document = RatingsDocument()
        for (offset, row) in rows.enumerated() where !(row.count == 1 && row[0].trimmingCharacters(in: .whitespaces).isEmpty) {
            let label = "line \(offset + 2)"
            func cell(_ index: Int?) -> String? {
                guard let index, index < row.count else { return nil }
                return row[index].trimmingCharacters(in: .whitespaces)
            }
            if let kindColumn, let nameColumn = column(["name"]), let valueColumn {
                switch cell(kindColumn)?.lowercased() {
                case "course": document.addCourse(label: label, course: cell(nameColumn), value: Double(cell(valueColumn) ?? ""))
                case "instructor", "professor": document.addInstructor(label: label, name: cell(nameColumn), value: Double(cell(valueColumn) ?? ""))
                default: document.rejected.append(RejectedRow(row: label, reason: "kind must be `course` or `instructor`"))
                }
            } else if let courseColumn, let gpaColumn {
                document.addCourse(label: label, course: cell(courseColumn), value: Double(cell(gpaColumn) ?? ""))
            } else if let instructorColumn, let ratingColumn {
                document.addInstructor(label: label, name: cell(instructorColumn), value: Double(cell(ratingColumn) ?? ""))
            } else {
                throw RatingsFormatError("The header must name `course,average_gpa`, `instructor,rating` or `kind,name,value`.")
            }
        }
        return document
    }

    mutating func addCourse(label: String, course: String?, value: Double?) {
        guard let course, let parsed = CourseLabel(parsing: course) else {
            rejected.append(RejectedRow(row: label, reason: "course must look like `CMSC 131`"))
            return
        }
        guard let value, value.isFinite, (0...4).contains(value) else {
            rejected.append(RejectedRow(row: label, reason: "average GPA must be a number from 0 to 4"))
            return
        }
        courses.append(CourseGPA(course: parsed.description, averageGPA: value))
    }

    mutating func addInstructor(label: String, name: String?, value: Double?) {
        let trimmed = name?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard !trimmed.isEmpty, trimmed.count <= 200 else {
            rejected.append(RejectedRow(row: label, reason: "instructor name must be 1 to 200 characters"))
            return
        }
        guard let value, value.isFinite, (0...5).contains(value) else {
            rejected.append(RejectedRow(row: label, reason: "rating must be a number from 0 to 5"))
            return
        }
        instructors.append(InstructorRating(name: trimmed, rating: value))
    }

    private static func number(_ value: Any?) -> Double? {
        if let number = value as? NSNumber, !(value is Bool) { return number.doubleValue }
        if let text = value as? String { return Double(text) }
        return nil
    }
}

/// A ratings file that is not one at all.
public struct RatingsFormatError: Error, Sendable, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
}

/// RFC 4180 CSV: fields separated by commas, quoted fields with doubled quotes, CRLF or LF.
enum CSVRows {
    static func parse(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var iterator = text.makeIterator()
        var pending: Character?
        while let character = pending ?? iterator.next() {
            pending = nil
            if quoted {
                if character == "\"" {
                    if let next = iterator.next() {
                        if next == "\"" { field.append("\"") } else { quoted = false; pending = next }
                    } else { quoted = false }
                } else {
                    field.append(character)
                }
                continue
            }
            switch character {
            case "\"" where field.isEmpty: quoted = true
            case ",": row.append(field); field = ""
            case "\n", "\r\n", "\r":
                row.append(field); field = ""
                rows.append(row); row = []
            default: field.append(character)
            }
        }
        if !field.isEmpty || !row.isEmpty { row.append(field); rows.append(row) }
        return rows
    }
}

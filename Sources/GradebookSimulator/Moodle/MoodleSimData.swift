public import Foundation

/// What the Moodle stand-in serves (docs/gradebook-simulator.md, Moodle mode): the site, its
/// students with their passwords and web-service tokens, courses with their grade items, and
/// each student's grades. Written from Moodle's Web Services documentation.
public struct MoodleSimData: Sendable, Equatable {
    public struct Student: Sendable, Equatable {
        public var id: Int64
        public var username: String
        public var password: String
        public var fullname: String
        /// Web-service tokens of the site's service that work for this student; the first is
        /// what `login/token.php` hands out.
        public var tokens: [String]
        public var courseIDs: [Int64]
        /// `login/token.php` answers `passwordisexpired`.
        public var passwordExpired: Bool

        public init(id: Int64, username: String, password: String, fullname: String, tokens: [String], courseIDs: [Int64], passwordExpired: Bool = false) {
            self.id = id
            self.username = username
            self.password = password
            self.fullname = fullname
            self.tokens = tokens
            self.courseIDs = courseIDs
            self.passwordExpired = passwordExpired
        }
    }

    public struct Course: Sendable, Equatable {
        public var id: Int64
        public var shortname: String
        public var fullname: String
        /// The course's "Show gradebook to students".
        public var showgrades: Bool
        /// Students lack `gradereport/user:view` here: the report answers `nopermissiontoviewgrades`.
        public var studentsMayViewGrades: Bool
        public var items: [Item]

        public init(id: Int64, shortname: String, fullname: String, showgrades: Bool = true, studentsMayViewGrades: Bool = true, items: [Item]) {
            self.id = id
            self.shortname = shortname
            self.fullname = fullname
            self.showgrades = showgrades
            self.studentsMayViewGrades = studentsMayViewGrades
            self.items = items
        }
    }

    /// A grade item (an activity's, or a manual one); the course total is computed.
    public struct Item: Sendable, Equatable {
        public var id: Int64
        public var name: String
        /// `mod` or `manual`.
        public var type: String
        public var module: String?
        public var grademax: Double
        /// The teacher hid the whole item from students.
        public var hidden: Bool

        public init(id: Int64, name: String, type: String = "mod", module: String? = "assign", grademax: Double, hidden: Bool = false) {
            self.id = id
            self.name = name
            self.type = type
            self.module = module
            self.grademax = grademax
            self.hidden = hidden
        }
    }

    /// One student's grade on an item: nil `raw` while ungraded.
    public struct Grade: Sendable, Equatable {
        public var raw: Double?
        public var feedback: String?
        /// The teacher hid this grade.
        public var hidden: Bool

        public init(raw: Double?, feedback: String? = nil, hidden: Bool = false) {
            self.raw = raw
            self.feedback = feedback
            self.hidden = hidden
        }
    }

    public var siteName: String
    /// The web service students reach the site through (`moodle_mobile_app`).
    public var service: String
    /// The functions the service offers; a function outside it answers `accessexception`.
    public var functions: [String]
    public var students: [Student]
    public var courses: [Course]
    /// Grades by student id, then item id.
    public var grades: [Int64: [Int64: Grade]]

    public init(siteName: String, service: String, functions: [String], students: [Student], courses: [Course], grades: [Int64: [Int64: Grade]]) {
        self.siteName = siteName
        self.service = service
        self.functions = functions
        self.students = students
        self.courses = courses
        self.grades = grades
    }

    /// The functions the mobile service offers that the gateway uses.
    public static let mobileFunctions = [
        "core_webservice_get_site_info", "core_enrol_get_users_courses", "gradereport_user_get_grade_items", "gradereport_overview_get_course_grades",
    ]

    /// The demo's token for its student.
    public static let demoToken = "d3m0m00dle70ken00000000000000001"

    /// The demo site: one student (`ada` / `moodle-demo`, user 3) in three courses: History with
    /// graded, ungraded and hidden items; Physics whose teacher hides the gradebook; Drawing,
    /// where students may not view grades. `students` more (`student1`…, tokens
    /// `benchmoodletoken1`…) share History, for benchmarks.
    public static func demo(students extra: Int = 0) -> MoodleSimData {
        let history = Course(id: 301, shortname: "HIST 101", fullname: "History of the Americas", items: [
            Item(id: 3011, name: "Essay 1", grademax: 50),
            Item(id: 3012, name: "Quiz 1", module: "quiz", grademax: 10),
            Item(id: 3013, name: "Final exam", module: "quiz", grademax: 100),
            Item(id: 3014, name: "Participation", type: "manual", module: nil, grademax: 5),
            Item(id: 3015, name: "Extra credit draft", grademax: 5, hidden: true),
        ])
        let physics = Course(id: 302, shortname: "PHYS 121", fullname: "Physics I", showgrades: false, items: [Item(id: 3021, name: "Lab 1", grademax: 20)])
        let drawing = Course(id: 303, shortname: "ART 110", fullname: "Drawing", studentsMayViewGrades: false, items: [Item(id: 3031, name: "Sketchbook", grademax: 10)])
        let ada = Student(id: 3, username: "ada", password: "moodle-demo", fullname: "Ada Lovelace", tokens: [demoToken], courseIDs: [301, 302, 303])
        var grades: [Int64: [Int64: Grade]] = [3: [
            3011: Grade(raw: 42, feedback: "<p>A strong thesis; cite <b>two</b> more sources.</p>"),
            3012: Grade(raw: 9),
            3013: Grade(raw: nil),
            3014: Grade(raw: 4, hidden: true),
            3015: Grade(raw: 5),
            3021: Grade(raw: 18),
            3031: Grade(raw: 8),
        ]]
        var students = [ada]
        for n in 0..<max(0, extra) {
            let id = Int64(1000 + n)
            students.append(Student(id: id, username: "student\(n + 1)", password: "moodle-bench", fullname: "Student \(n + 1)", tokens: ["benchmoodletoken\(n + 1)"], courseIDs: [301]))
            grades[id] = [3011: Grade(raw: Double(30 + n % 20)), 3012: Grade(raw: Double(n % 11))]
        }
        return MoodleSimData(
            siteName: "Campus Moodle (stand-in)", service: "moodle_mobile_app", functions: mobileFunctions, students: students,
            courses: [history, physics, drawing], grades: grades
        )
    }

    public func student(token: String) -> Student? { students.first { $0.tokens.contains(token) } }
}

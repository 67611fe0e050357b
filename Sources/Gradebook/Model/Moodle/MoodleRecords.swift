public import Foundation

/// The parts of Moodle's Web Services answers the gateway reads, with Moodle's own field names
/// (`login/token.php`, `core_webservice_get_site_info`, `core_enrol_get_users_courses`,
/// `gradereport_user_get_grade_items`, `gradereport_overview_get_course_grades`). Fields Moodle
/// may leave out or send as `null` are optional; everything else in an answer is ignored.
public enum MoodleRecords {
    /// `login/token.php`'s answer: a token, or Moodle's error (`error`, `errorcode`).
    public struct TokenAnswer: Sendable, Decodable {
        public var token: String?
        public var error: String?
        public var errorcode: String?
    }

    /// What a web-service function answers when it fails, with HTTP 200:
    /// `{"exception": "moodle_exception", "errorcode": "invalidtoken", "message": "..."}`.
    public struct Exception: Sendable, Decodable, Equatable {
        public var exception: String
        public var errorcode: String?
        public var message: String?
    }

    /// `core_webservice_get_site_info`: whose token it is, the site, and what it may call.
    public struct SiteInfo: Sendable, Decodable {
        public var userid: Int64
        public var sitename: String?
        public var fullname: String?
        public var functions: [Function]?

        public struct Function: Sendable, Decodable {
            public var name: String
        }

        /// Whether the token may call `name`; a site that lists no functions is taken to allow
        /// what the mobile service has.
        public func allows(_ name: String) -> Bool {
            guard let functions else { return true }
            return functions.contains { $0.name == name }
        }
    }

    /// One of `core_enrol_get_users_courses`'s courses.
    public struct Course: Sendable, Decodable {
        public var id: Int64
        public var shortname: String?
        public var fullname: String?
        public var displayname: String?
        /// The course's "Show gradebook to students" setting; absent on old sites (shown).
        public var showgrades: Bool?
        public var hidden: Bool?
    }

    /// `gradereport_user_get_grade_items`: one `usergrades` entry per user asked for.
    public struct GradeItemsAnswer: Sendable, Decodable {
        public var usergrades: [UserGrades]
    }

    public struct UserGrades: Sendable, Decodable {
        public var courseid: Int64
        public var userid: Int64
        public var gradeitems: [GradeItem]
    }

    /// One grade item of the user report, as the student sees it.
    public struct GradeItem: Sendable, Decodable {
        public var id: Int64
        public var itemname: String?
        /// `mod` (an activity), `manual`, `category` (a category's total) or `course` (the total).
        public var itemtype: String?
        public var itemmodule: String?
        /// The score, `null` while ungraded (never 0).
        public var graderaw: Double?
        public var gradeformatted: String?
        public var grademin: Double?
        public var grademax: Double?
        public var percentageformatted: String?
        public var feedback: String?
        public var gradedatesubmitted: Int64?
        public var gradedategraded: Int64?
        /// The teacher hid the grade (or the item) from the student: never shown.
        public var gradeishidden: Bool?
    }

    /// `gradereport_overview_get_course_grades`: the course totals in one call.
    public struct Overview: Sendable, Decodable {
        public var grades: [CourseTotal]
    }

    public struct CourseTotal: Sendable, Decodable {
        public var courseid: Int64
        /// The formatted total (`85.00`, `B+`, `-`).
        public var grade: String?
        public var rawgrade: String?
    }
}

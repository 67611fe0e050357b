extension SimulatorData {
    /// The password of every demo login.
    public static let demoPassword = "gradebook-test-1"

    /// The fixed demo data set (listed in `docs/gradebook-simulator.md`): three sections in two terms
    /// (2152 Winter 2015: CPE 458; 2154 Spring 2015: CSC 436 and CPE 357), nine students, and the
    /// logins `test` (staff) and each student's username, all with the password ``demoPassword``.
    /// Deterministic: the same on every call.
    public static var demo: SimulatorData {
        let sections = DemoPlan.sections.enumerated().map { index, plan in DemoPlan.build(plan, index: index) }
        var accounts = [SimulatedAccount(username: "test", password: demoPassword, role: .staff)]
        for student in DemoPlan.students where sections.contains(where: { $0.enrollment(username: student.username) != nil }) {
            accounts.append(SimulatedAccount(username: student.username, password: demoPassword, role: .student))
        }
        return SimulatorData(sections: DemoScores.fill(sections), accounts: accounts)
    }
}

/// The demo data's plan: who, what and when. ``DemoScores`` fills in the submissions.
enum DemoPlan {
    struct Student {
        let username: String, first: String, middle: String, last: String, emplid: Int, major: String, age: Int
    }

    struct Assignment {
        let id: Int, name: String, short: String, max: Int, displayType: Int, sortOrder: Int
        /// Days after the section's first day, or nil for no due date.
        let dueDay: Int?
        var extraCredit = false
        var permissions = SimulatedPermissions.student
    }

    struct Section {
        let id: Int, polynum: Int, term: Int, termName: String, dept: String, course: String, title: String
        let firstDay: Int, lastDay: Int
        /// Indexes into ``students``; the last list holds the dropped ones.
        let students: [Int], dropped: [Int]
        let assignments: [Assignment]
    }

    static let students: [Student] = [
        Student(username: "jdoe", first: "Jane", middle: "Q", last: "Doe", emplid: 10_012_345, major: "Computer Science", age: 21),
        Student(username: "asmith", first: "Alex", middle: "", last: "Smith", emplid: 10_012_346, major: "Computer Engineering", age: 22),
        Student(username: "bnguyen", first: "Binh", middle: "", last: "Nguyen", emplid: 10_012_347, major: "Software Engineering", age: 20),
        Student(username: "cgarcia", first: "Carla", middle: "M", last: "Garcia", emplid: 10_012_348, major: "Computer Science", age: 23),
        Student(username: "dpatel", first: "Dev", middle: "", last: "Patel", emplid: 10_012_349, major: "Computer Engineering", age: 21),
        Student(username: "ekim", first: "Eun-ji", middle: "", last: "Kim", emplid: 10_012_350, major: "Computer Science", age: 19),
        Student(username: "fmueller", first: "Franz", middle: "J", last: "Mueller", emplid: 10_012_351, major: "Electrical Engineering", age: 24),
        Student(username: "glopez", first: "Gabriela", middle: "", last: "Lopez", emplid: 10_012_352, major: "Software Engineering", age: 20),
        Student(username: "hwu", first: "Henry", middle: "", last: "Wu", emplid: 10_012_353, major: "Computer Science", age: 22),
    ]

    static let sections: [Section] = [
        Section(
            id: 41, polynum: 3125, term: 2152, termName: "Winter 2015", dept: "CPE", course: "458",
            title: "Current Topics in Computer Systems: iOS", firstDay: unixTime(2015, 1, 5), lastDay: unixTime(2015, 3, 20),
            students: [0, 1, 2, 3, 4], dropped: [],
            assignments: [
                Assignment(id: 1, name: "Lab 1: Hello iOS", short: "Lab 1", max: 10, displayType: 0, sortOrder: 1, dueDay: 9),
                Assignment(id: 2, name: "Lab 2: MemoryHound", short: "Lab 2", max: 10, displayType: 0, sortOrder: 2, dueDay: 16),
                Assignment(id: 3, name: "Lab 3: Table Views", short: "Lab 3", max: 15, displayType: 1, sortOrder: 3, dueDay: 30),
                Assignment(id: 4, name: "Lab 5: GradebookVI", short: "Lab 5", max: 20, displayType: 1, sortOrder: 5, dueDay: 51),
                Assignment(id: 5, name: "Midterm", short: "Mid", max: 100, displayType: 2, sortOrder: 4, dueDay: 37),
                Assignment(
                    id: 6, name: "Final Project", short: "Final", max: 50, displayType: 2, sortOrder: 6, dueDay: 74,
                    permissions: SimulatedPermissions(
                        visible: false, viewFiles: false, viewStats: false, viewHistogram: false, viewPermissions: false,
                        create: false, change: false, viewComputedBy: false
                    )
                ),
            ]
        ),
        Section(
            id: 57, polynum: 4410, term: 2154, termName: "Spring 2015", dept: "CSC", course: "436",
            title: "Mobile Application Development", firstDay: unixTime(2015, 3, 30), lastDay: unixTime(2015, 6, 12),
            students: [0, 5, 6, 7], dropped: [],
            assignments: [
                Assignment(id: 11, name: "Assignment 1: Android Basics", short: "A1", max: 20, displayType: 0, sortOrder: 1, dueDay: 10),
                Assignment(id: 12, name: "Assignment 2: Layouts", short: "A2", max: 20, displayType: 1, sortOrder: 3, dueDay: 24),
                Assignment(id: 13, name: "Quiz 1", short: "Q1", max: 15, displayType: 1, sortOrder: 2, dueDay: 20),
                Assignment(id: 14, name: "Participation", short: "Part", max: 10, displayType: 0, sortOrder: 5, dueDay: nil, extraCredit: true),
                Assignment(id: 15, name: "Midterm Exam", short: "Mid", max: 100, displayType: 2, sortOrder: 4, dueDay: 38),
            ]
        ),
        Section(
            id: 58, polynum: 4476, term: 2154, termName: "Spring 2015", dept: "CPE", course: "357",
            title: "Systems Programming", firstDay: unixTime(2015, 3, 30), lastDay: unixTime(2015, 6, 12),
            students: [1, 2, 5, 7], dropped: [8],
            assignments: [
                Assignment(id: 21, name: "Program 1: mytr", short: "P1", max: 25, displayType: 0, sortOrder: 1, dueDay: 11),
                Assignment(id: 22, name: "Program 2: hencode", short: "P2", max: 25, displayType: 1, sortOrder: 2, dueDay: 25),
                Assignment(id: 23, name: "Lab 4: Pointers", short: "L4", max: 10, displayType: 0, sortOrder: 3, dueDay: 18),
                Assignment(
                    id: 24, name: "Midterm", short: "Mid", max: 100, displayType: 2, sortOrder: 4, dueDay: 35,
                    permissions: SimulatedPermissions(
                        visible: true, viewFiles: true, viewStats: false, viewHistogram: false, viewPermissions: false,
                        create: false, change: false, viewComputedBy: false
                    )
                ),
                Assignment(id: 25, name: "Program 3: mush", short: "P3", max: 40, displayType: 1, sortOrder: 5, dueDay: 60),
            ]
        ),
    ]

    /// One section, enrollments numbered from 850 + 10 × the section's index.
    static func build(_ plan: Section, index: Int) -> SimulatedSection {
        let members = plan.students.map { ($0, false) } + plan.dropped.map { ($0, true) }
        let enrollments = members.enumerated().map { offset, member in
            let student = students[member.0]
            let id = 850 + 10 * index + offset
            return SimulatedEnrollment(
                id: id, emplid: student.emplid, username: student.username, cscUsername: student.username,
                bbId: "bb\(student.emplid)", firstName: student.first, middleName: student.middle, lastName: student.last,
                major: student.major, dropped: member.1 ? 1 : 0, age: student.age,
                picture: SimulatedFile(id: 32_000 + id, fileExtension: "png", mimetype: "image/png")
            )
        }
        let assignments = plan.assignments.map { asn in
            SimulatedAssignment(
                id: asn.id, name: asn.name, abbreviatedName: asn.short, maxPoints: asn.max,
                extraCreditAllowed: asn.extraCredit, sortOrder: asn.sortOrder, displayType: asn.displayType,
                dueDate: asn.dueDay.map { plan.firstDay + $0 * 86_400 + 23 * 3_600 + 59 * 60 },
                studentPermissions: asn.permissions, scores: []
            )
        }
        return SimulatedSection(
            id: plan.id, polynum: plan.polynum, term: plan.term, termName: plan.termName, dept: plan.dept,
            course: plan.course, title: plan.title, firstDay: plan.firstDay, lastDay: plan.lastDay,
            enrollments: enrollments, assignments: assignments
        )
    }

    /// Unix seconds of midnight UTC on a civil date (Howard Hinnant's days-from-civil).
    static func unixTime(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return (era * 146_097 + dayOfEra - 719_468) * 86_400
    }
}

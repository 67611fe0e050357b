import Catalog
import Contracts
import Foundation
import Storage

extension EligibilityService {
    /// The demo's eligibility data, so `make run` shows refusals with their reasons: the demo
    /// student's record (a junior in CS, MATH 245 in progress), the classmate's (a freshman with
    /// a bursar hold on adds), the demo term's windows (seniors, then juniors, then everyone;
    /// all open by now) and the requirements of one course, CS 596 (classes 7055 and 7056),
    /// which the demo student does not meet. Every other class stays open to every student, as
    /// the SDSU protocol's clients expect of the demo.
    public func seedDemo(student username: String, classmate classmateName: String, admin adminName: String) async throws {
        let accounts = self.accounts
        let (student, classmate, admin) = try await transactions.read { db in
            (
                try accounts.account(username: username, in: db)?.id, try accounts.account(username: classmateName, in: db)?.id,
                try accounts.account(username: adminName, in: db)?.id
            )
        }
        guard let student, let classmate, let admin else { return }
        guard try await record(of: student) == nil else { return }
        try await putRecord(
            AcademicRecord(
                level: .undergraduate, standing: .junior, majors: ["CS"], maxUnits: 18,
                history: [
                    CourseAttempt(course: "CS 150", term: "2017-fall", grade: .a),
                    CourseAttempt(course: "CS 310", term: "2018-spring", grade: .bPlus),
                    CourseAttempt(course: "MATH 245", term: "2018-fall", grade: .inProgress),
                ]
            ),
            of: student, by: admin
        )
        try await putRecord(AcademicRecord(level: .undergraduate, standing: .freshman, majors: ["MATH"]), of: classmate, by: admin)
        _ = try await placeHold(
            RegistrationHold(id: 0, code: "BURSAR", reason: "Unpaid balance: pay at the Bursar's office", blocks: [.add]), on: classmate, by: admin
        )
        let pacific = TimeZone(identifier: "America/Los_Angeles")!
        func date(_ day: Int) -> Date {
            var components = DateComponents(year: 2018, month: 11, day: day, hour: 8)
            components.timeZone = pacific
            return Calendar(identifier: .gregorian).date(from: components)!
        }
        try await putWindows(
            [
                RegistrationWindow(standing: .senior, opensAt: date(1)),
                RegistrationWindow(standing: .junior, opensAt: date(5)),
                RegistrationWindow(opensAt: date(8)),
            ],
            of: DemoCatalog.term, by: admin
        )
        try await putRequirements(
            CourseRequirements(
                prerequisites: .all([.course("CS 440", minGrade: .c), .any([.course("MATH 245", minGrade: nil), .course("MATH 254", minGrade: nil)])]),
                restrictions: .init(standings: [.senior, .graduate])
            ),
            of: "CS 596", in: DemoCatalog.term, by: admin
        )
    }
}

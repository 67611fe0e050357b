import GradebookSimulator
import HummingbirdTesting
import Testing

@Suite("Demo data")
struct DemoDataTests {
    @Test("is deterministic, with unique score and file ids")
    func deterministic() {
        let data = SimulatorData.demo
        #expect(data == SimulatorData.demo)
        let scores = data.sections.flatMap { $0.assignments.flatMap(\.scores) }
        #expect(Set(scores.map(\.id)).count == scores.count)
        let files = scores.flatMap { [$0.feedback, $0.studentWork].compactMap { $0 } } + data.sections.flatMap { $0.enrollments.map(\.picture) }
        #expect(Set(files.map(\.id)).count == files.count)
        #expect(data.sections.map(\.term).sorted() == [2152, 2154, 2154])
        #expect(data.accounts.contains { $0.username == "test" && $0.password == "gradebook-test-1" && $0.role == .staff })
    }

    @Test("exactly one score counts per (user, assignment) with submissions, not always the newest")
    func oneCounts() async throws {
        try await Sim.app(GradebookSimulator(adminToken: nil)).test(.router) { client in
            var olderCounts = 0, empty = 0, multiple = 0
            for section in SimulatorData.demo.sections {
                for enrollment in section.enrollments {
                    let assignments = try await Sim.userScores(client, term: section.term, course: section.course, user: enrollment.username)
                    for assignment in assignments {
                        let scores = try #require(assignment["scores"] as? [[String: Any]])
                        if scores.isEmpty { empty += 1; continue }
                        if scores.count > 1 { multiple += 1 }
                        let counting = scores.filter { intValue($0["counts"]) == 1 }
                        #expect(counting.count == 1, "\(enrollment.username) \(assignment["id"] ?? "")")
                        let newest = scores.max { intValue($0["post_date"])! < intValue($1["post_date"])! }
                        if let newest, intValue(counting.first?["id"]) != intValue(newest["id"]) { olderCounts += 1 }
                    }
                }
            }
            #expect(olderCounts > 0)
            #expect(empty > 0)
            #expect(multiple > 0)
        }
    }
}

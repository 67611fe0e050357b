import GradebookSimulator
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Who sees what")
struct PermissionTests {
    var app: some ApplicationProtocol { Sim.app(GradebookSimulator(adminToken: nil)) }

    static func isDenied(_ response: TestResponse) throws -> Bool {
        try response.status == .ok && ((Sim.json(response) as? String)?.hasPrefix("Incorrect permission") ?? false)
    }

    @Test("a student sees the sections they are enrolled in")
    func studentSections() async throws {
        try await app.test(.router) { client in
            let sections = try #require(try Sim.object(try await Sim.grades(client, "record=sections", as: "jdoe"))["sections"] as? [[String: Any]])
            #expect(Set(sections.compactMap { $0["course"] as? String }) == ["458", "436"])
        }
    }

    @Test("a student sees their own scores, and an Incorrect permission string for another's")
    func studentIsolation() async throws {
        try await app.test(.router) { client in
            let own = try await Sim.userScores(client, term: 2152, course: "458", user: "jdoe", as: "jdoe")
            #expect(!own.isEmpty)
            // The student's permissions, no student_permissions, and no invisible assignment.
            #expect(own.allSatisfy { $0["student_permissions"] == nil && $0["permissions"] != nil })
            #expect(!own.contains { intValue($0["id"]) == 6 })

            let other = try await Sim.grades(client, "record=userscores&term=2152&course=458&user=asmith", as: "jdoe")
            #expect(try Self.isDenied(other))
            let notMine = try await Sim.grades(client, "record=userscores&term=2154&course=357&user=jdoe", as: "jdoe")
            #expect(try Self.isDenied(notMine))
        }
    }

    @Test("a student sees only their own enrollment, and none in a section they are not in")
    func studentEnrollments() async throws {
        try await app.test(.router) { client in
            let own = try #require(try Sim.object(try await Sim.grades(client, "record=enrollments&term=2152&course=458", as: "jdoe"))["enrollments"] as? [[String: Any]])
            #expect(own.map { $0["username"] as? String } == ["jdoe"])
            #expect(try Self.isDenied(try await Sim.grades(client, "record=enrollments&term=2154&course=357", as: "jdoe")))
            #expect(try Self.isDenied(try await Sim.grades(client, "record=enrollments&term=1999&course=101", as: "test")))
        }
    }

    @Test("asnstats follow view_stats and visibility for students; staff see all")
    func asnStats() async throws {
        try await app.test(.router) { client in
            let allowed = try await Sim.grades(client, "record=asnstats&term=2152&course=458&id=1", as: "jdoe")
            #expect(try Sim.object(allowed)["asnstats"] != nil)
            #expect(try Self.isDenied(try await Sim.grades(client, "record=asnstats&term=2154&course=357&id=24", as: "asmith")))
            #expect(try Self.isDenied(try await Sim.grades(client, "record=asnstats&term=2152&course=458&id=6", as: "jdoe")))
            #expect(try Self.isDenied(try await Sim.grades(client, "record=asnstats&term=2152&course=458&id=21", as: "test")))
            #expect(try Sim.object(try await Sim.grades(client, "record=asnstats&term=2154&course=357&id=24"))["asnstats"] != nil)
        }
    }

    @Test("test sees every section, every enrollment and everyone's scores")
    func staffSeesAll() async throws {
        try await app.test(.router) { client in
            let data = SimulatorData.demo
            let sections = try #require(try Sim.object(try await Sim.grades(client, "record=sections"))["sections"] as? [[String: Any]])
            #expect(sections.count == data.sections.count)
            for section in data.sections {
                let response = try await Sim.grades(client, "record=enrollments&term=\(section.term)&course=\(section.course)")
                let enrollments = try #require(try Sim.object(response)["enrollments"] as? [[String: Any]])
                #expect(enrollments.count == section.enrollments.count)
                for enrollment in section.enrollments {
                    let scores = try await Sim.userScores(client, term: section.term, course: section.course, user: enrollment.username)
                    #expect(scores.count == section.assignments.count)
                }
            }
        }
    }
}

import GradebookSimulator
import HTTPTypes
import HummingbirdTesting
import Testing

@Suite("Admin hook")
struct AdminTests {
    @Test("without an admin token the admin routes are not there")
    func absentWithoutToken() async throws {
        try await Sim.app(GradebookSimulator(adminToken: nil)).test(.router) { client in
            let response = try await client.execute(uri: "\(Sim.base)/_admin/requests", method: .get, headers: Sim.admin)
            #expect(response.status == .notFound)
        }
    }

    @Test("a missing or wrong bearer token is a 404")
    func needsToken() async throws {
        try await Sim.app(GradebookSimulator(adminToken: Sim.token)).test(.router) { client in
            for headers: HTTPFields in [[:], [.authorization: "Bearer wrong"], [.authorization: "Bearer \(Sim.token)x"], Sim.basic("test")] {
                let response = try await client.execute(
                    uri: "\(Sim.base)/_admin/scores", method: .post, headers: headers,
                    body: Sim.body(#"{"term":2152,"course":"458","user":"jdoe","assignment":3,"score":1}"#)
                )
                #expect(response.status == .notFound)
            }
            #expect(try await client.execute(uri: "\(Sim.base)/_admin/requests", method: .get, headers: Sim.admin).status == .ok)
        }
    }

    @Test("POST scores adds a submission; with counts it becomes the one that counts")
    func addScore() async throws {
        try await Sim.app(GradebookSimulator(adminToken: Sim.token)).test(.router) { client in
            let response = try await client.execute(
                uri: "\(Sim.base)/_admin/scores", method: .post, headers: Sim.admin,
                body: Sim.body(#"{"term":2152,"course":"458","user":"jdoe","assignment":3,"score":9.5,"displayScore":"9.5","counts":true,"postDate":1424000000}"#)
            )
            #expect(response.status == .created)
            let score = try Sim.object(response)
            let id = try #require(intValue(score["id"]))
            #expect(score["display_score"] as? String == "9.5" && intValue(score["counts"]) == 1)
            #expect(intValue(score["post_date"]) == 1_424_000_000)

            let asn = try #require(try await Sim.userScores(client, term: 2152, course: "458", user: "jdoe").first { intValue($0["id"]) == 3 })
            let scores = try #require(asn["scores"] as? [[String: Any]])
            #expect(scores.contains { intValue($0["id"]) == id })
            #expect(scores.filter { intValue($0["counts"]) == 1 }.map { intValue($0["id"]) } == [id])

            // Without counts, a further submission does not count; with no displayScore it follows the display type.
            let plain = try await client.execute(
                uri: "\(Sim.base)/_admin/scores", method: .post, headers: Sim.admin,
                body: Sim.body(#"{"term":2152,"course":"458","user":"jdoe","assignment":3,"score":12}"#)
            )
            let second = try Sim.object(plain)
            #expect(intValue(second["counts"]) == 0 && second["display_score"] as? String == "12/15")
            #expect(intValue(second["id"]) == id + 1)

            let unknown = try await client.execute(
                uri: "\(Sim.base)/_admin/scores", method: .post, headers: Sim.admin,
                body: Sim.body(#"{"term":2152,"course":"458","user":"ekim","assignment":3,"score":1}"#)
            )
            #expect(unknown.status == .notFound)
            let invalid = try await client.execute(uri: "\(Sim.base)/_admin/scores", method: .post, headers: Sim.admin, body: Sim.body("{"))
            #expect(invalid.status == .badRequest)
        }
    }

    @Test("PATCH scores/{id} changes a score, what it displays and whether it counts")
    func patchScore() async throws {
        let simulator = GradebookSimulator(adminToken: Sim.token)
        let assignment = try #require(simulator.data.sections[0].assignments.first { $0.id == 1 })
        let byUser = Dictionary(grouping: assignment.scores, by: \.username)
        let several = try #require(byUser.values.first { $0.count > 1 })
        let notCounting = try #require(several.first { !$0.counts })
        let single = try #require(byUser.values.first { $0.count == 1 }?.first)
        try await Sim.app(simulator).test(.router) { client in
            let response = try await client.execute(
                uri: "\(Sim.base)/_admin/scores/\(notCounting.id)", method: .patch, headers: Sim.admin,
                body: Sim.body(#"{"score":3.5,"displayScore":4,"counts":true}"#)
            )
            #expect(response.status == .ok)
            let patched = try Sim.object(response)
            #expect(doubleValue(patched["score"]) == 3.5 && isNumber(patched["display_score"]) && intValue(patched["counts"]) == 1)
            let scores = try #require(simulator.data.sections[0].assignments.first { $0.id == 1 }?.scores.filter { $0.username == notCounting.username })
            #expect(scores.filter(\.counts).map(\.id) == [notCounting.id])

            let uncount = try await client.execute(
                uri: "\(Sim.base)/_admin/scores/\(single.id)", method: .patch, headers: Sim.admin, body: Sim.body(#"{"counts":false}"#)
            )
            #expect(uncount.status == .conflict)
            let missing = try await client.execute(
                uri: "\(Sim.base)/_admin/scores/99999", method: .patch, headers: Sim.admin, body: Sim.body(#"{"score":1}"#)
            )
            #expect(missing.status == .notFound)
        }
    }

    @Test("GET requests counts protocol requests; POST reset restores the data and clears counts and faults")
    func countsAndReset() async throws {
        let simulator = GradebookSimulator(adminToken: Sim.token)
        try await Sim.app(simulator).test(.router) { client in
            _ = try await client.execute(uri: "\(Sim.base)/auth.txt", method: .get, headers: Sim.basic("test"))
            _ = try await Sim.grades(client, "record=sections")
            _ = try await Sim.grades(client, "record=sections")
            _ = try await Sim.grades(client, "record=nonsense")
            let counts = try Sim.object(try await client.execute(uri: "\(Sim.base)/_admin/requests", method: .get, headers: Sim.admin))
            #expect(intValue(counts["total"]) == 4)
            let byKind = try #require(counts["byKind"] as? [String: Any])
            #expect(intValue(byKind["sections"]) == 2 && intValue(byKind["auth"]) == 1 && intValue(byKind["other"]) == 1)

            _ = try await client.execute(
                uri: "\(Sim.base)/_admin/scores", method: .post, headers: Sim.admin,
                body: Sim.body(#"{"term":2152,"course":"458","user":"jdoe","assignment":3,"score":1,"counts":true}"#)
            )
            simulator.setFault(SimulatorFault(mode: .error500))
            #expect(simulator.data != SimulatorData.demo)
            let reset = try await client.execute(uri: "\(Sim.base)/_admin/reset", method: .post, headers: Sim.admin)
            #expect(reset.status == .ok)
            #expect(simulator.data == SimulatorData.demo)
            #expect(simulator.fault == .none)
            #expect(simulator.requestCounts == SimulatorRequestCounts())
            #expect(try await Sim.grades(client, "record=sections").status == .ok)
        }
    }
}

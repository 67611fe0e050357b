import Foundation
import GradebookSimulator
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Record shapes and types")
struct RecordShapeTests {
    var app: some ApplicationProtocol { Sim.app(GradebookSimulator(adminToken: nil)) }

    @Test("sections: ints, strings, course a string, days in Unix seconds")
    func sections() async throws {
        try await app.test(.router) { client in
            let response = try await Sim.grades(client, "record=sections")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
            let sections = try #require(try Sim.object(response)["sections"] as? [[String: Any]])
            #expect(sections.count == 3)
            for section in sections {
                for key in ["id", "polynum", "term", "first_day", "last_day"] { #expect(isInt(section[key]), "\(key)") }
                for key in ["termname", "dept", "course", "title"] { #expect(isString(section[key]), "\(key)") }
                #expect(intValue(section["first_day"])! < intValue(section["last_day"])!)
            }
            let first = try #require(sections.first { ($0["course"] as? String) == "458" })
            #expect(intValue(first["term"]) == 2152)
            #expect(intValue(first["first_day"]) == 1_420_416_000)  // 2015-01-05
        }
    }

    @Test("enrollments: ints, strings and a picture object with a file_download url")
    func enrollments() async throws {
        try await app.test(.router) { client in
            let response = try await Sim.grades(client, "record=enrollments&term=2152&course=458")
            let enrollments = try #require(try Sim.object(response)["enrollments"] as? [[String: Any]])
            #expect(enrollments.count == 5)
            for enrollment in enrollments {
                for key in ["id", "emplid", "role", "dropped", "admin_failure", "ferpa", "age", "email_level"] {
                    #expect(isInt(enrollment[key]), "\(key)")
                }
                for key in ["username", "csc_username", "bb_id", "first_name", "middle_name", "last_name", "major"] {
                    #expect(isString(enrollment[key]), "\(key)")
                }
                let picture = try #require(enrollment["picture"] as? [String: Any])
                #expect(isInt(picture["id"]))
                #expect(isString(picture["file_extension"]) && isString(picture["mimetype"]))
                let url = try #require(picture["url"] as? String)
                #expect(url.hasPrefix("/sim/gradebook/file_download?file=\(intValue(picture["id"])!)&enrollment=\(intValue(enrollment["id"])!)"))
                #expect(url.hasSuffix("&name=file&term=2152&course=458"))
            }
        }
    }

    @Test("userscores: one per visible assignment by sort_order, permissions, scores with 0/1 counts")
    func userScores() async throws {
        try await app.test(.router) { client in
            let assignments = try await Sim.userScores(client, term: 2152, course: "458", user: "jdoe")
            #expect(assignments.map { intValue($0["id"]) } == [1, 2, 3, 5, 4, 6])  // by sort_order
            var displayKinds = Set<String>()
            var files = 0
            for assignment in assignments {
                for key in ["id", "max_points", "extra_credit_allowed", "email_notification", "sort_order", "compute_func", "display_type", "due_date"] {
                    #expect(isInt(assignment[key]), "\(key)")
                }
                for key in ["extra_credit_allowed", "email_notification"] { #expect(isFlag(assignment[key])) }
                #expect(isString(assignment["name"]) && isString(assignment["abbreviated_name"]))
                for key in ["permissions", "student_permissions"] {
                    let permissions = try #require(assignment[key] as? [String: Any], "\(key)")
                    #expect(Set(permissions.keys) == [
                        "id", "person", "visible", "view_files", "view_stats", "view_histogram", "view_permissions",
                        "create", "change", "view_computed_by",
                    ])
                    #expect(permissions.values.allSatisfy(isInt))
                }
                let scores = try #require(assignment["scores"] as? [[String: Any]])
                for score in scores {
                    #expect(isInt(score["id"]) && isNumber(score["score"]) && isInt(score["post_date"]))
                    #expect(isFlag(score["counts"]))
                    let display = score["display_score"]
                    #expect(isString(display) || isNumber(display))
                    displayKinds.insert(isString(display) ? "string" : "number")
                    for key in ["feedback", "student_work"] {
                        guard let file = score[key] else { continue }
                        let object = try #require(file as? [String: Any])
                        #expect((object["url"] as? String)?.contains("name=\(key)") == true)
                        files += 1
                    }
                }
            }
            #expect(displayKinds == ["string", "number"])
            #expect(files > 0)
        }
    }

    @Test("asnstats: numbers computed from the scores that count")
    func asnStats() async throws {
        try await app.test(.router) { client in
            let response = try await Sim.grades(client, "record=asnstats&term=2152&course=458&id=3")
            let stats = try #require(try Sim.object(response)["asnstats"] as? [String: Any])
            for key in ["points", "min_score", "max_score", "mean_score", "median_score", "std_dev"] { #expect(isNumber(stats[key]), "\(key)") }
            #expect(isInt(stats["attempts"]) && isInt(stats["unique_students"]))
            #expect(intValue(stats["id"]) == 3 && doubleValue(stats["points"]) == 15)

            var counting: [Double] = []
            var attempts = 0, students = 0
            for user in ["jdoe", "asmith", "bnguyen", "cgarcia", "dpatel"] {
                let asn = try #require(try await Sim.userScores(client, term: 2152, course: "458", user: user).first { intValue($0["id"]) == 3 })
                let scores = try #require(asn["scores"] as? [[String: Any]])
                attempts += scores.count
                students += scores.isEmpty ? 0 : 1
                counting += scores.filter { intValue($0["counts"]) == 1 }.compactMap { doubleValue($0["score"]) }
            }
            #expect(intValue(stats["attempts"]) == attempts)
            #expect(intValue(stats["unique_students"]) == students)
            #expect(doubleValue(stats["min_score"]) == counting.min())
            #expect(doubleValue(stats["max_score"]) == counting.max())
            let mean = counting.reduce(0, +) / Double(counting.count)
            #expect(abs(doubleValue(stats["mean_score"])! - mean) < 0.001)
        }
    }

    @Test("an unknown record or a missing parameter is a 400 with a JSON string")
    func badRequests() async throws {
        try await app.test(.router) { client in
            for query in [
                "record=grades", "", "record=enrollments&course=458", "record=enrollments&term=x&course=458",
                "record=enrollments&term=2152", "record=userscores&term=2152&course=458", "record=asnstats&term=2152&course=458",
                "record=asnstats&term=2152&course=458&id=three",
            ] {
                let response = try await Sim.grades(client, query)
                #expect(response.status == .badRequest, "\(query)")
                #expect(isString(try Sim.json(response)), "\(query)")
            }
        }
    }

    @Test("file_download serves a placeholder to who may see the file")
    func fileDownload() async throws {
        try await app.test(.router) { client in
            let response = try await Sim.grades(client, "record=enrollments&term=2152&course=458", as: "jdoe")
            let mine = try #require((try Sim.object(response)["enrollments"] as? [[String: Any]])?.first)
            let url = try #require((mine["picture"] as? [String: Any])?["url"] as? String)
            let picture = try await client.execute(uri: url, method: .get, headers: Sim.basic("jdoe"))
            #expect(picture.status == .ok)
            #expect(picture.headers[.contentType] == "image/png")
            #expect(Array(picture.body.readableBytesView.prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
            let stranger = try await client.execute(uri: url, method: .get, headers: Sim.basic("asmith"))
            #expect((try Sim.json(stranger) as? String)?.hasPrefix("Incorrect permission") == true)
            let anonymous = try await client.execute(uri: url, method: .get)
            #expect(anonymous.status == .unauthorized)
            let staff = try await client.execute(uri: url, method: .get, headers: Sim.basic("test"))
            #expect(staff.status == .ok)
        }
    }
}

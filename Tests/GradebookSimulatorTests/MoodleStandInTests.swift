import Foundation
import GradebookSimulator
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOFoundationEssentialsCompat
import Testing

/// The Moodle stand-in as Moodle's Web Services docs describe it: `login/token.php` and its
/// error codes, the REST server's functions with their field names (GET or POST form), errors
/// as HTTP 200 exception objects, hidden items, and the admin route that changes a grade.
@Suite("Moodle stand-in")
struct MoodleStandInTests {
    static func app(_ moodle: MoodleSimulator) -> some ApplicationProtocol {
        let router = Router()
        moodle.register(on: router, prefix: "moodle")
        return Application(router: router)
    }

    static let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
    static let token = MoodleSimData.demoToken

    static func json(_ buffer: ByteBuffer) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer: buffer)) as? [String: Any])
    }

    static func call(_ client: some TestClientProtocol, _ function: String, _ query: String = "", token: String = token) async throws -> (HTTPResponse.Status, Any) {
        try await client.execute(
            uri: "/moodle/webservice/rest/server.php?wstoken=\(token)&wsfunction=\(function)&moodlewsrestformat=json\(query)", method: .get
        ) { ($0.status, try JSONSerialization.jsonObject(with: Data(buffer: $0.body))) }
    }

    @Test func theTokenEndpointAnswersATokenOrMoodlesErrorCodes() async throws {
        let moodle = MoodleSimulator()
        try await Self.app(moodle).test(.router) { client in
            func login(_ body: String) async throws -> [String: Any] {
                try await client.execute(uri: "/moodle/login/token.php", method: .post, headers: Self.form, body: ByteBuffer(string: body)) { response in
                    #expect(response.status == .ok, "Moodle answers its errors with 200")
                    return try Self.json(response.body)
                }
            }
            #expect(try await login("username=ada&password=moodle-demo&service=moodle_mobile_app")["token"] as? String == Self.token)
            #expect(try await login("username=ADA+&password=moodle-demo&service=moodle_mobile_app")["token"] as? String == Self.token, "usernames are trimmed and lower-cased")
            #expect(try await login("username=ada&password=nope&service=moodle_mobile_app")["errorcode"] as? String == "invalidlogin")
            #expect(try await login("username=ada&password=moodle-demo&service=other")["errorcode"] as? String == "servicenotavailable")
            #expect(try await login("username=ada&service=moodle_mobile_app")["errorcode"] as? String == "missingparam")
            moodle.setMaintenance(true)
            let maintenance = try await login("username=ada&password=moodle-demo&service=moodle_mobile_app")
            #expect(maintenance["errorcode"] as? String == "sitemaintenance" && maintenance["error"] is String)
            moodle.setMaintenance(false)
            moodle.update { $0.students[0].passwordExpired = true }
            #expect(try await login("username=ada&password=moodle-demo&service=moodle_mobile_app")["errorcode"] as? String == "passwordisexpired")
        }
    }

    @Test func theFunctionsAnswerWithMoodlesFieldNames() async throws {
        try await Self.app(MoodleSimulator()).test(.router) { client in
            let (_, info) = try await Self.call(client, "core_webservice_get_site_info")
            let site = try #require(info as? [String: Any])
            #expect(site["userid"] as? Int == 3 && site["sitename"] is String && site["fullname"] as? String == "Ada Lovelace")
            #expect((site["functions"] as? [[String: Any]])?.contains { $0["name"] as? String == "gradereport_user_get_grade_items" } == true)
            let (_, courses) = try await Self.call(client, "core_enrol_get_users_courses", "&userid=3&returnusercount=0")
            let list = try #require(courses as? [[String: Any]])
            #expect(list.map { $0["shortname"] as? String } == ["HIST 101", "PHYS 121", "ART 110"])
            #expect(list[1]["showgrades"] as? Bool == false)
            let (_, report) = try await Self.call(client, "gradereport_user_get_grade_items", "&courseid=301&userid=3")
            let items = try #require(((report as? [String: Any])?["usergrades"] as? [[String: Any]])?.first?["gradeitems"] as? [[String: Any]])
            let byName = Dictionary(items.compactMap { item in (item["itemname"] as? String).map { ($0, item) } }, uniquingKeysWith: { first, _ in first })
            #expect(byName["Essay 1"]?["graderaw"] as? Double == 42 && byName["Essay 1"]?["grademax"] as? Double == 50)
            #expect(byName["Essay 1"]?["percentageformatted"] as? String == "84.00 %")
            #expect(byName["Final exam"]?["graderaw"] is NSNull && byName["Final exam"]?["gradeformatted"] as? String == "-")
            #expect(byName["Participation"]?["gradeishidden"] as? Bool == true && byName["Extra credit draft"]?["gradeishidden"] as? Bool == true)
            #expect(items.last?["itemtype"] as? String == "course" && items.last?["graderaw"] as? Double == 51)
            let (_, denied) = try await Self.call(client, "gradereport_user_get_grade_items", "&courseid=303&userid=3")
            #expect((denied as? [String: Any])?["errorcode"] as? String == "nopermissiontoviewgrades")
            let (_, overview) = try await Self.call(client, "gradereport_overview_get_course_grades", "&userid=3")
            let totals = try #require((overview as? [String: Any])?["grades"] as? [[String: Any]])
            #expect(totals.map { $0["courseid"] as? Int } == [301] && totals.first?["grade"] as? String == "51.00")
        }
    }

    @Test func errorsAreExceptionObjectsWithStatus200AndPostFormWorks() async throws {
        let moodle = MoodleSimulator(adminToken: Sim.token)
        try await Self.app(moodle).test(.router) { client in
            let (status, unknown) = try await Self.call(client, "core_webservice_get_site_info", token: "ffffffffffffffffffffffff")
            #expect(status == .ok)
            #expect((unknown as? [String: Any])?["exception"] as? String == "moodle_exception")
            #expect((unknown as? [String: Any])?["errorcode"] as? String == "invalidtoken")
            let (_, outside) = try await Self.call(client, "core_user_get_users")
            #expect((outside as? [String: Any])?["errorcode"] as? String == "accessexception")
            moodle.fail("core_enrol_get_users_courses", with: "generalexceptionmessage")
            let (_, failed) = try await Self.call(client, "core_enrol_get_users_courses", "&userid=3")
            #expect((failed as? [String: Any])?["errorcode"] as? String == "generalexceptionmessage")
            let posted = try await client.execute(
                uri: "/moodle/webservice/rest/server.php", method: .post, headers: Self.form,
                body: ByteBuffer(string: "wstoken=\(Self.token)&wsfunction=core_webservice_get_site_info&moodlewsrestformat=json")
            ) { try Self.json($0.body) }
            #expect(posted["userid"] as? Int == 3)

            let refused = try await client.execute(
                uri: "/moodle/_admin/moodle/grades", method: .post, headers: [.authorization: "Bearer wrong"], body: ByteBuffer(string: "{}")
            ) { $0.status }
            #expect(refused == .notFound)
            let changed = try await client.execute(
                uri: "/moodle/_admin/moodle/grades", method: .post, headers: [.authorization: "Bearer \(Sim.token)", .contentType: "application/json"],
                body: ByteBuffer(string: #"{"userId": 3, "itemId": 3013, "grade": 77, "feedback": "Well done"}"#)
            ) { $0.status }
            #expect(changed == .noContent)
            #expect(moodle.data.grades[3]?[3013] == MoodleSimData.Grade(raw: 77, feedback: "Well done"))
            #expect(moodle.requests.contains { $0.function == "core_webservice_get_site_info" && $0.hadToken })
            let counted = try await client.execute(uri: "/moodle/_admin/moodle/requests", method: .get, headers: [.authorization: "Bearer \(Sim.token)"]) {
                try Self.json($0.body)["total"] as? Int
            }
            #expect(counted == moodle.requests.count && counted == 4, "the four calls, not the admin routes' own")
        }
    }
}

import Foundation
import GatewayApp
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import NIOCore
import TestSupport
import Testing

/// Hostile input on the compatibility protocols (`/registration/`, `/gradebook/.../grades.json`,
/// `/ios/`): wrong types, huge values, unicode and control characters, SQL metacharacters,
/// empty and truncated bodies, repeated parameters. Each answers in its own protocol's form
/// (never a problem document, never a 5xx of the gateway's own), and what it stores is stored
/// literally.
@Suite("Compatibility protocols under hostile input")
struct CompatibilityHostileInputTests {
    static let sampleStudent = #"{"firstname":"Roger","lastname":"Whitney","redid":"123456003","password":"password","email":"whitney@sdsu.edu"}"#

    /// An SDSU answer of one key: 200, JSON, `{key: message}` and nothing else.
    static func expectSingle(_ reply: HTTPReply, _ key: String, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let object = (try? JSONSerialization.jsonObject(with: Data(reply.body.utf8))) as? [String: Any]
        #expect(reply.status == .ok && reply.contentType?.hasPrefix("application/json") == true, "status \(reply.status)", sourceLocation: sourceLocation)
        #expect(object?.keys.sorted() == [key] && object?[key] as? String == message, "body was \(reply.body)", sourceLocation: sourceLocation)
    }

    /// Values no field expects, sent in every position.
    static let hostile: [String] = [
        "", " ", "-1", "0", "9223372036854775808", "-9223372036854775809", "1e400", "1.5", "0x10", "true", "null",
        "[]", "{}", "\u{0}", "a\u{0}b", "\u{7}\u{1b}[31m", "\r\nX-Injected: 1", "ünïcødé", "😀", "\u{202e}evil",
        "' OR '1'='1", "1; DROP TABLE classes; --", "%00", "%", "../../etc/passwd", String(repeating: "9", count: 5000),
    ]

    static func encoded(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }

    static func demo(_ backend: GatewayBackend) async throws -> TestGateway {
        try await TestGateway.make(backend) { config in
            config.demo = true
            config.quickHACRequestsPerMinute = 0
            config.environment = [:]
        }
    }

    // MARK: SDSU registration

    /// An SDSU answer: JSON (an object with `error`, or the endpoint's data) at 200 or 400, or
    /// the protocol's HTML 404 for an unknown URL.
    static func expectSDSUForm(_ reply: HTTPReply, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status.code < 500, "\(what): \(reply.status) \(reply.body.prefix(200))", sourceLocation: sourceLocation)
        switch reply.status {
        case .ok, .badRequest:
            #expect(reply.contentType?.hasPrefix("application/json") == true, "\(what): \(reply.contentType ?? "none")", sourceLocation: sourceLocation)
            let parsed = try? JSONSerialization.jsonObject(with: Data(reply.body.utf8), options: .fragmentsAllowed)
            #expect(parsed != nil, "\(what): not JSON: \(reply.body.prefix(200))", sourceLocation: sourceLocation)
            if reply.status == .badRequest {
                #expect((parsed as? [String: Any])?["error"] is String, "\(what): \(reply.body.prefix(200))", sourceLocation: sourceLocation)
            }
            #expect(!(reply.contentType ?? "").contains("problem"), "\(what): a problem document", sourceLocation: sourceLocation)
        case .notFound:
            #expect(reply.contentType?.hasPrefix("text/html") == true, "\(what): \(reply.contentType ?? "none")", sourceLocation: sourceLocation)
        default:
            Issue.record("\(what): \(reply.status) is not in the SDSU protocol", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: GatewayBackend.all) func sdsuQueriesAnswerInTheProtocolsForm(_ backend: GatewayBackend) async throws {
        let gateway = try await TestGateway.registration(backend)
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client async throws in
            _ = try await client.json(.post, "/registration/addstudent", body: Self.sampleStudent)
            let credentials = "redid=123456003&password=password"
            let prefixes = [
                "/registration/classids?subjectid=",
                "/registration/classdetails?classid=",
                "/registration/registerclass?\(credentials)&courseid=",
                "/registration/waitlistclass?\(credentials)&courseid=",
                "/registration/unregisterclass?\(credentials)&courseid=",
                "/registration/unwaitlistclass?\(credentials)&courseid=",
                "/registration/studentclasses?password=password&redid=",
                "/registration/studentclasses?redid=123456003&password=",
                "/registration/resetstudent?redid=123456003&password=",
                "/registration/classidslist?subjectids=%5B1%5D&level=",
                "/registration/classidslist?subjectids=",
                "/registration/classidslist?subjectids=%5B1%5D&starttime=",
            ]
            for prefix in prefixes {
                for value in Self.hostile {
                    let reply = try await client.json(.get, prefix + Self.encoded(value))
                    Self.expectSDSUForm(reply, "GET \(prefix)\(value.prefix(20).debugDescription)")
                }
            }
            // Repeated parameters: one of them is used, never a crash, never both.
            for path in [
                "/registration/classdetails?classid=7030&classid=7036",
                "/registration/registerclass?\(credentials)&courseid=7030&courseid=7036",
                "/registration/unregisterclass?\(credentials)&courseid=7030&courseid=7036",
                "/registration/studentclasses?redid=123456003&redid=999999999&password=password",
            ] {
                Self.expectSDSUForm(try await client.json(.get, path), "GET \(path)")
            }
            let classes = try await client.json(.get, "/registration/studentclasses?\(credentials)")
            let enrolled = (classes.object["classes"] as? [Int] ?? []) + (classes.object["waitlist"] as? [Int] ?? [])
            #expect(enrolled.count <= 1, "a repeated courseid registers one class at most: \(classes.body)")
        }
    }

    @Test(arguments: GatewayBackend.all) func sdsuBodiesAnswerInTheProtocolsForm(_ backend: GatewayBackend) async throws {
        let gateway = try await TestGateway.registration(backend)
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client async throws in
            let broken = [
                "", " ", "{", #"{"redid":"1234"#, #"{"redid":"123456003","password":"#, "[]", "null", "1", #""text""#,
                #"{"redid":{"$gt":""}}"#, "\u{0}", String(repeating: "[", count: 10_000), #"{"a":1,"a":2}"#,
            ]
            let values = [
                "null", "true", "1.5", "1e400", "9223372036854775808", "-1", "[]", "{}", #""""#, #""\u0000""#,
                #""' OR 1=1 --""#, "\"" + String(repeating: "x", count: 70_000) + "\"",
            ]
            let endpoints: [(String, [String: String])] = [
                ("/registration/classdetails", ["classids": "[7030]"]),
                ("/registration/classidslist", ["subjectids": "[1]", "level": #""upper""#, "starttime": #""0800""#]),
                ("/registration/addstudent", ["firstname": #""A""#, "lastname": #""B""#, "redid": #""123456777""#, "password": #""password""#, "email": #""a@b.edu""#]),
                ("/registration/registerclass", ["redid": #""123456003""#, "password": #""password""#, "courseid": "7030"]),
                ("/registration/waitlistclass", ["redid": #""123456003""#, "password": #""password""#, "courseid": "7036"]),
                ("/registration/unregisterclass", ["redid": #""123456003""#, "password": #""password""#, "courseid": "7030"]),
                ("/registration/studentclasses", ["redid": #""123456003""#, "password": #""password""#]),
                ("/registration/resetstudent", ["redid": #""123456003""#, "password": #""password""#]),
            ]
            _ = try await client.json(.post, "/registration/addstudent", body: Self.sampleStudent)
            for (path, fields) in endpoints {
                for body in broken {
                    Self.expectSDSUForm(try await client.json(.post, path, body: body), "POST \(path) \(body.prefix(30).debugDescription)")
                }
                for field in fields.keys.sorted() {
                    for value in values {
                        var changed = fields
                        changed[field] = value
                        let body = "{" + changed.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
                        Self.expectSDSUForm(try await client.json(.post, path, body: body), "POST \(path) \(field)=\(value.prefix(30))")
                    }
                }
            }
        }
    }

    @Test(arguments: GatewayBackend.all) func sqlMetacharactersAreStoredLiterally(_ backend: GatewayBackend) async throws {
        let gateway = try await TestGateway.registration(backend)
        defer { gateway.cleanUp() }
        let first = "Robert'); DROP TABLE registration_students;--"
        let last = #"O"Brien \ %_ ' ; --"#
        try await gateway.withRouter { client async throws in
            let body = try JSONSerialization.data(withJSONObject: [
                "firstname": first, "lastname": last, "redid": "123456789", "password": "p'a\"ss;--w", "email": "o'brien@sdsu.edu",
            ])
            Self.expectSingle(
                try await client.json(.post, "/registration/addstudent", body: String(decoding: body, as: UTF8.self)), "ok", "Student Added"
            )
            // The password with its quotes signs in, and the names come back byte for byte.
            let token = try await client.json(.post, "/v1/auth/token", body: #"{"username":"123456789","password":"p'a\"ss;--w"}"#)
            #expect(token.status == .created, "\(token.body)")
            let bearer = try #require(token.object["token"] as? String)
            let schedule = try await client.json(.get, "/v1/me/registration", token: bearer)
            let profile = schedule.object["profile"] as? [String: Any] ?? [:]
            #expect(profile["firstName"] as? String == first, "\(schedule.body)")
            #expect(profile["lastName"] as? String == last, "\(schedule.body)")
            #expect(profile["email"] as? String == "o'brien@sdsu.edu", "\(schedule.body)")
            // The tables are all still there: the catalog answers and the student registers.
            let subjects = try await client.json(.get, "/registration/subjectlist")
            #expect(subjects.status == .ok && !(subjects.body.isEmpty))
            Self.expectSingle(
                try await client.json(.get, "/registration/registerclass?redid=123456789&password=\(Self.encoded("p'a\"ss;--w"))&courseid=7030"),
                "ok", "Course added"
            )
            // A wrong password that is an SQL tautology is just a wrong password.
            let tautology = try await client.json(.get, "/registration/studentclasses?redid=123456789&password=\(Self.encoded("' OR '1'='1"))")
            #expect(tautology.object["classes"] == nil, "\(tautology.body)")
            #expect(tautology.object["error"] is String, "\(tautology.body)")
        }
    }

    // MARK: QuickHAC

    /// A QuickHAC answer: JSON with an integer `status` (and `lastError` when refused) at one of
    /// the protocol's statuses.
    static func expectQuickHACForm(_ reply: HTTPReply, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect([200, 406, 413, 418, 429].contains(reply.status.code), "\(what): \(reply.status) \(reply.body.prefix(200))", sourceLocation: sourceLocation)
        #expect(reply.contentType?.hasPrefix("application/json") == true, "\(what): \(reply.contentType ?? "none")", sourceLocation: sourceLocation)
        #expect(reply.object["status"] is Int, "\(what): \(reply.body.prefix(200))", sourceLocation: sourceLocation)
        if reply.status != .ok {
            #expect(reply.object["lastError"] is Int, "\(what): \(reply.body.prefix(200))", sourceLocation: sourceLocation)
        }
    }

    static func form(_ client: some TestClientProtocol, _ path: String, _ body: String) async throws -> HTTPReply {
        try await client.execute(
            uri: path, method: .post, headers: [.contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: body)
        ) { HTTPReply(status: $0.status, headers: $0.headers, body: String(buffer: $0.body)) }
    }

    @Test func quickHACFormsAnswerInTheProtocolsForm() async throws {
        let gateway = try await Self.demo(.sqlite)
        defer { gateway.cleanUp() }
        let uuid = "device-\(UUID().uuidString)"
        try await gateway.withLiveServer { client async throws in
            #expect(try await Self.form(client, "/ios/register", "uuid=\(uuid)").status == .ok)
            let paths = ["/ios/register", "/ios/register_device", "/ios/account_add", "/ios/account_remove", "/ios/student_add", "/ios/student_remove"]
            let broken = [
                "", "uuid", "uuid=", "uuid=%", "uuid=%ZZ", "=", "&&&", "uuid=\(uuid)&uuid=other-\(UUID().uuidString)",
                "uuid=\(uuid)&user=test&user=other&pass=x&district=1&id=a", "\u{0}\u{1}\u{2}", "uuid=\(uuid)%00",
                "uuid=\(String(repeating: "a", count: 70_000))",
            ]
            for path in paths {
                for body in broken {
                    Self.expectQuickHACForm(try await Self.form(client, path, body), "\(path) \(body.prefix(40).debugDescription)")
                }
                for field in ["uuid", "user", "pass", "district", "id", "token"] {
                    for value in Self.hostile {
                        var fields = ["uuid": uuid, "user": "test", "pass": "gradebook-test-1", "district": "1", "id": "test"]
                        fields[field] = value
                        let body = fields.map { "\($0.key)=\(Self.encoded($0.value))" }.joined(separator: "&")
                        Self.expectQuickHACForm(try await Self.form(client, path, body), "\(path) \(field)=\(value.prefix(20).debugDescription)")
                    }
                }
            }
            // JSON where a form belongs, and no content type at all.
            let json = try await client.json(.post, "/ios/register", body: #"{"uuid":"\#(uuid)"}"#)
            Self.expectQuickHACForm(json, "JSON body")
            // A token of fullwidth hex digits is not an APNs token.
            let fullwidth = String(repeating: "０ｆ", count: 32)
            let refused = try await Self.form(client, "/ios/register", "uuid=\(uuid)&token=\(Self.encoded(fullwidth))")
            #expect(refused.status.code == 418 && refused.object["lastError"] as? Int == 3, "\(refused.body)")
        }
    }

    @Test func quickHACUuidsWithSQLMetacharactersAreDistinctDevices() async throws {
        let gateway = try await Self.demo(.sqlite)
        defer { gateway.cleanUp() }
        let id = UUID().uuidString
        try await gateway.withLiveServer { client async throws in
            let quote = "x'--;DROP_TABLE_push_devices;-\(id)", doubled = "x\"--;DROP_TABLE_push_devices;-\(id)"
            #expect(try await Self.form(client, "/ios/register", "uuid=\(Self.encoded(quote))").object["status"] as? Int == 1)
            #expect(try await Self.form(client, "/ios/register", "uuid=\(Self.encoded(quote))").object["status"] as? Int == 0)
            #expect(try await Self.form(client, "/ios/register", "uuid=\(Self.encoded(doubled))").object["status"] as? Int == 1)
            #expect(try await Self.form(client, "/ios/register", "uuid=\(id)").object["status"] as? Int == 1)
            // The account is stored under the quoted device only.
            let added = try await Self.form(client, "/ios/account_add", "uuid=\(Self.encoded(quote))&user=test&pass=gradebook-test-1&district=1")
            #expect(added.object["status"] as? Int == 0, "\(added.body)")
            #expect(try await Self.form(client, "/ios/account_remove", "uuid=\(Self.encoded(doubled))&user=test").object["status"] as? Int == 1)
            #expect(try await Self.form(client, "/ios/account_remove", "uuid=\(Self.encoded(quote))&user=test").object["status"] as? Int == 0)
        }
    }

    // MARK: Gradebook

    /// A gradebook compatibility answer: never a 500 of the gateway's own, never a problem
    /// document; the gateway's own refusals are a JSON string.
    static func expectGradebookForm(_ reply: HTTPReply, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status.code != 500 && reply.status.code != 501, "\(what): \(reply.status) \(reply.body.prefix(200))", sourceLocation: sourceLocation)
        #expect(!(reply.contentType ?? "").contains("problem"), "\(what): a problem document", sourceLocation: sourceLocation)
        if [400, 401, 404, 429, 502, 503, 504].contains(reply.status.code), reply.contentType?.hasPrefix("application/json") == true {
            let parsed = try? JSONSerialization.jsonObject(with: Data(reply.body.utf8), options: .fragmentsAllowed)
            #expect(parsed is String, "\(what): the gateway's refusal is a JSON string: \(reply.body.prefix(200))", sourceLocation: sourceLocation)
        }
    }

    @Test func gradebookQueriesAnswerInTheProtocolsForm() async throws {
        let gateway = try await Self.demo(.sqlite)
        defer { gateway.cleanUp() }
        let good = DemoGateway.basic("test", DemoGateway.password)
        try await gateway.withLiveServer { client async throws in
            func get(_ uri: String, authorization: String? = nil) async throws -> HTTPReply {
                try await client.execute(uri: uri, method: .get, headers: [.authorization: authorization ?? good]) {
                    HTTPReply(status: $0.status, headers: $0.headers, body: String(buffer: $0.body))
                }
            }
            for parameter in ["record", "term", "course", "user", "id", "refresh"] {
                for value in Self.hostile {
                    let uri = "/gradebook/1/grades.json?record=sections&\(parameter)=\(Self.encoded(value))"
                    Self.expectGradebookForm(try await get(uri), "\(parameter)=\(value.prefix(20).debugDescription)")
                }
            }
            for source in ["0", "-1", "9223372036854775808", "abc", "%00", "1%2F..%2F2", "1.0"] {
                Self.expectGradebookForm(try await get("/gradebook/\(source)/grades.json?record=sections"), "source \(source)")
            }
            let many = (0..<40).map { "p\($0)=\($0)" }.joined(separator: "&")
            let tooMany = try await get("/gradebook/1/grades.json?record=sections&\(many)")
            #expect(tooMany.status == .badRequest, "\(tooMany.status)")
            Self.expectGradebookForm(tooMany, "40 parameters")
            Self.expectGradebookForm(try await get("/gradebook/1/grades.json?record=sections&record=enrollments&record=x"), "repeated record")
            for authorization in [
                "Basic", "Basic ", "Basic !!!", "Basic " + Data("no-colon".utf8).base64EncodedString(),
                "Basic " + Data(":".utf8).base64EncodedString(), "Basic " + Data("\u{0}:\u{0}".utf8).base64EncodedString(),
                "Basic " + Data("' OR 1=1 --:x".utf8).base64EncodedString(), "Bearer abc", String(repeating: "B", count: 9000),
                "Basic " + Data("ünï:😀".utf8).base64EncodedString(),
            ] {
                let reply = try await get("/gradebook/1/grades.json?record=sections", authorization: authorization)
                Self.expectGradebookForm(reply, "authorization \(authorization.prefix(30).debugDescription)")
                #expect(reply.status.code >= 400, "\(authorization.prefix(30)): refused, not served: \(reply.status)")
            }
            // After all that the student is still served.
            #expect(try await get("/gradebook/1/grades.json?record=sections").status == .ok)
        }
    }
}

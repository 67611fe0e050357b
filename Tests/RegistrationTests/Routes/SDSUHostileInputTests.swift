import Auth
import AuthTestSupport
import Foundation
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import Registration
import TestSupport
import Testing
import GRDB
import SQLiteStorage

/// Hostile input on the SDSU protocol (`/registration/`) over the Registration module's routes
/// (``RegistrationGateway``): wrong types, huge values, unicode and control characters, SQL
/// metacharacters, empty and truncated bodies, repeated parameters. Each answers in the
/// protocol's form (never a problem document, never a 5xx of the gateway's own), and what it
/// stores is stored literally.
@Suite("SDSU protocol under hostile input")
struct SDSUHostileInputTests {
    static let sampleStudent = #"{"firstname":"Roger","lastname":"Whitney","redid":"123456003","password":"password","email":"whitney@sdsu.edu"}"#

    /// An SDSU answer of one key: 200, JSON, `{key: message}` and nothing else.
    static func expectSingle(_ reply: HTTPReply, _ key: String, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let object = (try? JSONSerialization.jsonObject(with: Data(reply.body.utf8))) as? [String: Any]
        #expect(reply.status == .ok && reply.contentType?.hasPrefix("application/json") == true, "status \(reply.status)", sourceLocation: sourceLocation)
        #expect(object?.keys.sorted() == [key] && object?[key] as? String == message, "body was \(reply.body)", sourceLocation: sourceLocation)
    }

    static let hostile = HostileInput.values

    static func encoded(_ value: String) -> String { HostileInput.encoded(value) }

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

    /// A failure of the gateway's own (here a table gone from under the stores) is still an
    /// answer of the protocol's: `{"error": ...}`, never a problem document or a 5xx.
    @Test func aFailureOfOursAnswersInTheProtocolsForm() async throws {
        let gateway = try await RegistrationGateway.registration(.sqlite)
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client async throws in
            Self.expectSingle(try await client.json(.post, "/registration/addstudent", body: Self.sampleStudent), "ok", "Student Added")
            try await gateway.database.pool.write { db in
                try db.execute(sql: "ALTER TABLE registration_students RENAME TO registration_students_gone")
            }
            let reply = try await client.json(.get, "/registration/studentclasses?redid=123456003&password=password")
            Self.expectSingle(reply, "error", "Something went wrong on our side; please try again.")
            let register = try await client.json(.get, "/registration/registerclass?redid=123456003&password=password&courseid=7000")
            Self.expectSingle(register, "error", "Something went wrong on our side; please try again.")
        }
    }

    @Test(arguments: TestBackend.all) func sdsuQueriesAnswerInTheProtocolsForm(_ backend: TestBackend) async throws {
        let gateway = try await RegistrationGateway.registration(backend)
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

    @Test(arguments: TestBackend.all) func sdsuBodiesAnswerInTheProtocolsForm(_ backend: TestBackend) async throws {
        let gateway = try await RegistrationGateway.registration(backend)
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

    @Test(arguments: TestBackend.all) func sqlMetacharactersAreStoredLiterally(_ backend: TestBackend) async throws {
        let gateway = try await RegistrationGateway.registration(backend)
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
            // The password with its quotes signs in (through Auth's service, as its token route
            // calls it), and the names come back byte for byte.
            let bearer = try await gateway.auth.issueToken(username: "123456789", password: "p'a\"ss;--w", lifetimeMinutes: nil, clientAddress: nil).token
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
}

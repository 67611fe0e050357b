import Auth
import AuthTestSupport
import GatewayHTTP
import Catalog
import Foundation
import Hummingbird
import HummingbirdTesting
@testable import Registration
import GatewayCore
import TestSupport
import Testing

/// Drives `/registration/` exactly as seed 000's samples do and checks status, content type,
/// key sets, value types and strings.
@Suite("SDSU protocol contract (seed 000)")
struct RegistrationSDSUContractTests {
    static func json(_ reply: HTTPReply) -> Any? { try? JSONSerialization.jsonObject(with: Data(reply.body.utf8)) }

    static func isJSON200(_ reply: HTTPReply) -> Bool {
        reply.status == .ok && reply.contentType?.hasPrefix("application/json") == true
    }

    /// A 200 JSON object with the single key `key` whose value is `message`.
    static func expectSingle(_ reply: HTTPReply, _ key: String, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(isJSON200(reply), "status \(reply.status) \(reply.contentType ?? "")", sourceLocation: sourceLocation)
        let object = json(reply) as? [String: Any]
        #expect(object?.keys.sorted() == [key], "body was \(reply.body)", sourceLocation: sourceLocation)
        #expect(object?[key] as? String == message, "body was \(reply.body)", sourceLocation: sourceLocation)
    }

    static func expectBadRequest(_ reply: HTTPReply, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status == .badRequest, "body was \(reply.body)", sourceLocation: sourceLocation)
        #expect(reply.contentType?.hasPrefix("application/json") == true, sourceLocation: sourceLocation)
        #expect((json(reply) as? [String: Any])?["error"] is String, sourceLocation: sourceLocation)
    }

    static let sampleStudent = #"{"firstname":"Roger","lastname":"Whitney","redid":"123456003","password":"password","email":"whitney@sdsu.edu"}"#

    @Test(arguments: TestBackend.all) func subjectlist(_ backend: TestBackend) async throws {
        let gateway = try await RegistrationGateway.registration(backend)
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            let reply = try await client.json(.get, "/registration/subjectlist")
            #expect(Self.isJSON200(reply))
            let list = try #require(Self.json(reply) as? [[String: Any]])
            for subject in list {
                #expect(Set(subject.keys) == ["title", "id", "college", "classes"])
                #expect(subject["title"] is String && subject["college"] is String)
                #expect(subject["id"] as? Int != nil && !(subject["id"] is String))
                #expect(subject["classes"] as? Int != nil && !(subject["classes"] is String))
            }
            let astronomy = try #require(list.first { $0["id"] as? Int == 2 })
            #expect(astronomy["title"] as? String == "Astronomy" && astronomy["college"] as? String == "Science")
            #expect(astronomy["classes"] as? Int == 33)
            let cs = try #require(list.first { $0["id"] as? Int == 8 })
            #expect(cs["title"] as? String == "Computer Science" && cs["college"] as? String == "Science")
            #expect(cs["classes"] as? Int == 65)
        }
    }

    @Test(arguments: TestBackend.all) func classidslistGETAndPOST(_ backend: TestBackend) async throws {
        let gateway = try await RegistrationGateway.registration(backend)
        defer { gateway.cleanUp() }
        let expected = [7033, 7036, 7038, 7041, 7046, 7049, 7051, 7052]
        try await gateway.withRouter { client in
            let all = try await client.json(.get, "/registration/classidslist?subjectid=8")
            #expect(Self.isJSON200(all))
            #expect((Self.json(all) as? [Int]) == Array(7000...7064))

            let sample = try await client.json(.get, "/registration/classidslist?subjectid=8&level=graduate&starttime=1730")
            #expect(Self.isJSON200(sample))
            #expect(sample.body == "[7033,7036,7038,7041,7046,7049,7051,7052]")

            let post = try await client.json(.post, "/registration/classidslist", body: #"{"subjectids":[8], "level":"graduate", "starttime":"1730"}"#)
            #expect(Self.isJSON200(post))
            #expect((Self.json(post) as? [Int]) == expected)

            // Leniency real clients need.
            let numeric = try await client.json(.post, "/registration/classidslist", body: #"{"subjectids":[8,2], "level":"Graduate", "starttime":1730}"#)
            #expect((Self.json(numeric) as? [Int]) == expected)
            for uri in ["/registration/classidslist?subjectid=8&level=All", "/registration/classidslist?subjectid=8&level="] {
                #expect((Self.json(try await client.json(.get, uri)) as? [Int])?.count == 65)
            }
            let short = try await client.json(.get, "/registration/classidslist?subjectid=8&starttime=730&endtime=945")
            let padded = try await client.json(.get, "/registration/classidslist?subjectid=8&starttime=0730&endtime=0945")
            #expect(short.body == padded.body)
            #expect((Self.json(short) as? [Int]) == [7000, 7007, 7016, 7045])
            let lower = try await client.json(.get, "/registration/classidslist?subjectid=8&level=lower")
            #expect((Self.json(lower) as? [Int]) == Array(7000...7012))
            let unknownSubject = try await client.json(.get, "/registration/classidslist?subjectid=999")
            #expect(unknownSubject.body == "[]")
            let noSubjects = try await client.json(.post, "/registration/classidslist", body: #"{"subjectids":[]}"#)
            #expect(noSubjects.body == "[]")
            // No subjects does not excuse the other fields: each is checked as with subjects.
            Self.expectSingle(try await client.json(.post, "/registration/classidslist", body: #"{"subjectids":[],"level":"freshman"}"#), "error", "Invalid level, use lower, upper or graduate")
            Self.expectSingle(try await client.json(.post, "/registration/classidslist", body: #"{"subjectids":[],"endtime":"2599"}"#), "error", "Invalid endtime 2599")
            Self.expectBadRequest(try await client.json(.post, "/registration/classidslist", body: #"{"subjectids":[], "level": 5}"#))
            // classids: an array with no such class is an empty answer; any other type is 400,
            // a bare number as much as a string (the seed: "JSON array of integers").
            #expect(try await client.json(.post, "/registration/classdetails", body: #"{"classids":[0]}"#).body == "[]")
            Self.expectBadRequest(try await client.json(.post, "/registration/classdetails", body: #"{"classids":"x"}"#))
            Self.expectBadRequest(try await client.json(.post, "/registration/classdetails", body: #"{"classids":0}"#))
            Self.expectBadRequest(try await client.json(.post, "/registration/classidslist", body: #"{"subjectids":8}"#))
            Self.expectBadRequest(try await client.json(.post, "/registration/classdetails", body: #"{"classids":["x"]}"#))

            // Invalid values: 200 with {"error"}; missing or mistyped parameters: 400 with JSON.
            Self.expectSingle(try await client.json(.get, "/registration/classidslist?subjectid=8&level=freshman"), "error", "Invalid level, use lower, upper or graduate")
            Self.expectSingle(try await client.json(.get, "/registration/classidslist?subjectid=8&starttime=2560"), "error", "Invalid starttime 2560")
            Self.expectBadRequest(try await client.json(.get, "/registration/classidslist"))
            Self.expectBadRequest(try await client.json(.get, "/registration/classidslist?subjectid=eight"))
            Self.expectBadRequest(try await client.json(.post, "/registration/classidslist", body: #"{"level":"graduate"}"#))
            Self.expectBadRequest(try await client.json(.post, "/registration/classidslist", body: #"{"subjectids":"eight"}"#))
            Self.expectBadRequest(try await client.json(.post, "/registration/classidslist", body: #"{"subjectids":[8], "level": 5}"#))
            Self.expectBadRequest(try await client.json(.post, "/registration/classidslist", body: "{not json"))
        }
    }

    static let detailKeys: Set<String> = [
        "description", "department", "suffix", "building", "startTime", "meetingType", "section", "endTime", "enrolled",
        "days", "prerequisite", "title", "id", "instructor", "schedule#", "units", "room", "waitlist", "seats",
        "fullTitle", "subject", "course#",
    ]

    static func expectSeedDetails(_ object: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(Set(object.keys) == detailKeys, sourceLocation: sourceLocation)
        #expect(object.count == 22, sourceLocation: sourceLocation)
        let strings: [String: String] = [
            "department": "Computer Science", "suffix": "", "building": "GMCS", "startTime": "1900", "meetingType": "Lecture",
            "section": "01", "endTime": "2015", "days": "TTH", "prerequisite": "Computer Science 310.",
            "title": "SOFTWARE INTERNATNLIZATN", "instructor": "W. ROOT", "schedule#": "21073", "units": "3.0", "room": "425",
            "fullTitle": "Softwre Internationalization", "subject": "CS", "course#": "540",
        ]
        for (key, value) in strings { #expect(object[key] as? String == value, "\(key)", sourceLocation: sourceLocation) }
        #expect((object["description"] as? String)?.hasPrefix("Principles, ") == true, sourceLocation: sourceLocation)
        for key in ["enrolled", "waitlist", "seats", "id"] {
            #expect(object[key] as? Int != nil && !(object[key] is String), "\(key) is an integer", sourceLocation: sourceLocation)
        }
        #expect(object["id"] as? Int == 7036, sourceLocation: sourceLocation)
        #expect(object["seats"] as? Int == 48 && object["enrolled"] as? Int == 48, "7036 is full", sourceLocation: sourceLocation)
    }

    @Test(arguments: TestBackend.all) func classdetailsGETAndPOST(_ backend: TestBackend) async throws {
        let gateway = try await RegistrationGateway.registration(backend)
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            let get = try await client.json(.get, "/registration/classdetails?classid=7036")
            #expect(Self.isJSON200(get))
            Self.expectSeedDetails(try #require(Self.json(get) as? [String: Any]))

            let post = try await client.json(.post, "/registration/classdetails", body: #"{"classids":[7036]}"#)
            #expect(Self.isJSON200(post))
            let list = try #require(Self.json(post) as? [[String: Any]])
            #expect(list.count == 1)
            Self.expectSeedDetails(list[0])

            let two = try await client.json(.post, "/registration/classdetails", body: #"{"classids":[7036, 7012, 424242]}"#)
            let online = try #require((Self.json(two) as? [[String: Any]])?.last)
            #expect(online["id"] as? Int == 7012 && online["days"] as? String == "" && online["startTime"] as? String == "")
            #expect(online["building"] as? String == "ONLINE")

            Self.expectSingle(try await client.json(.get, "/registration/classdetails?classid=424242"), "error", "No such course")
            Self.expectBadRequest(try await client.json(.get, "/registration/classdetails"))
            Self.expectBadRequest(try await client.json(.get, "/registration/classdetails?classid=x7036"))
            Self.expectBadRequest(try await client.json(.post, "/registration/classdetails", body: #"{"classids":["a"]}"#))
        }
    }

    @Test(arguments: TestBackend.all) func addstudent(_ backend: TestBackend) async throws {
        let gateway = try await RegistrationGateway.registration(backend)
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            Self.expectSingle(try await client.json(.post, "/registration/addstudent", body: Self.sampleStudent), "ok", "Student Added")
            Self.expectSingle(try await client.json(.post, "/registration/addstudent", body: Self.sampleStudent), "error", "Red Id already in use")
            func add(_ redid: String, _ password: String = "password", _ email: String = "whitney@sdsu.edu") -> String {
                #"{"firstname":"Roger","lastname":"Whitney","redid":\#(redid),"password":"\#(password)","email":"\#(email)"}"#
            }
            Self.expectSingle(try await client.json(.post, "/registration/addstudent", body: add(#""12345600""#)), "error", "Invalid Red Id")
            Self.expectSingle(try await client.json(.post, "/registration/addstudent", body: add(#""12345600x""#)), "error", "Invalid Red Id")
            Self.expectSingle(try await client.json(.post, "/registration/addstudent", body: add(#""123456013""#, "pass")), "error", "Password too short")
            Self.expectSingle(
                try await client.json(.post, "/registration/addstudent", body: add(#""123456013""#, "aaaabbbb")), "error",
                "Password needs 7 different characters"
            )
            Self.expectSingle(
                try await client.json(.post, "/registration/addstudent", body: add(#""123456013""#, "password", "whitney.sdsu.edu")),
                "error", "Invalid email no @"
            )
            // A red id sent as a JSON number with nine digits is accepted.
            Self.expectSingle(try await client.json(.post, "/registration/addstudent", body: add("123456013")), "ok", "Student Added")
            Self.expectBadRequest(try await client.json(.post, "/registration/addstudent", body: add("6003")))
            Self.expectBadRequest(try await client.json(.post, "/registration/addstudent", body: #"{"firstname":"Roger"}"#))
            Self.expectBadRequest(try await client.json(.post, "/registration/addstudent", body: #"{"firstname":"R","lastname":"W","redid":"123456023","password":12345678,"email":"a@b"}"#))

            // addstudent is POST only: GET is an unknown URL.
            let get = try await client.json(.get, "/registration/addstudent")
            #expect(get.status == .notFound && get.contentType?.hasPrefix("text/html") == true)

            // The red id and password sign in to v1 as well (Auth's sign-in, `POST /v1/auth/token`).
            let token = try await gateway.auth.issueToken(username: "123456003", password: "password", lifetimeMinutes: nil, clientAddress: nil)
            #expect(token.token.hasPrefix("cgt_"))
        }
    }

    @Test(arguments: TestBackend.all) func registerWaitlistDropAndReset(_ backend: TestBackend) async throws {
        let gateway = try await RegistrationGateway.registration(backend)
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            _ = try await client.json(.post, "/registration/addstudent", body: Self.sampleStudent)
            let credentials = "redid=123456003&password=password"
            // The seed's own samples use 7036, which is full.
            Self.expectSingle(try await client.json(.get, "/registration/registerclass?\(credentials)&courseid=7036"), "error", "Course is full")
            Self.expectSingle(try await client.json(.get, "/registration/waitlistclass?\(credentials)&courseid=7036"), "ok", "Course added")
            Self.expectSingle(try await client.json(.get, "/registration/waitlistclass?\(credentials)&courseid=7036"), "error", "Student already on waitlist")
            Self.expectSingle(try await client.json(.get, "/registration/waitlistclass?\(credentials)&courseid=7030"), "error", "Course is not full, register instead")
            Self.expectSingle(try await client.json(.get, "/registration/registerclass?\(credentials)&courseid=7030"), "ok", "Course added")
            Self.expectSingle(try await client.json(.get, "/registration/registerclass?\(credentials)&courseid=7030"), "error", "Student already in course")
            Self.expectSingle(try await client.json(.post, "/registration/registerclass", body: #"{"redid":123456003,"password":"password","courseid":7044}"#), "error", "Time conflict with course 7030")
            Self.expectSingle(try await client.json(.post, "/registration/registerclass", body: #"{"redid":"123456003","password":"password","courseid":"7000"}"#), "ok", "Course added")
            Self.expectSingle(try await client.json(.post, "/registration/registerclass", body: #"{"redid":"123456003","password":"password","courseid":7004}"#), "ok", "Course added")
            Self.expectSingle(try await client.json(.get, "/registration/registerclass?\(credentials)&courseid=7010"), "error", "Student already has 3 courses, the limit")
            Self.expectSingle(try await client.json(.get, "/registration/registerclass?\(credentials)&courseid=1"), "error", "No such course")

            let classes = try await client.json(.get, "/registration/studentclasses?\(credentials)")
            #expect(Self.isJSON200(classes))
            let object = try #require(Self.json(classes) as? [String: Any])
            #expect(Set(object.keys) == ["classes", "waitlist"])
            #expect(object["classes"] as? [Int] == [7000, 7004, 7030])
            #expect(object["waitlist"] as? [Int] == [7036])
            let posted = try await client.json(.post, "/registration/studentclasses", body: #"{"redid":"123456003","password":"password"}"#)
            #expect(posted.body == classes.body)

            Self.expectSingle(try await client.json(.get, "/registration/unregisterclass?\(credentials)&courseid=7030"), "ok", "Course dropped")
            Self.expectSingle(try await client.json(.get, "/registration/unregisterclass?\(credentials)&courseid=7030"), "error", "Student not in course")
            Self.expectSingle(try await client.json(.post, "/registration/unwaitlistclass", body: #"{"redid":"123456003","password":"password","courseid":7036}"#), "ok", "Course dropped")
            Self.expectSingle(try await client.json(.get, "/registration/unwaitlistclass?\(credentials)&courseid=7036"), "error", "Student not on waitlist")
            Self.expectSingle(try await client.json(.get, "/registration/resetstudent?\(credentials)"), "ok", "Student reset")
            Self.expectSingle(try await client.json(.post, "/registration/resetstudent", body: #"{"redid":"123456003","password":"password"}"#), "ok", "Student reset")
            let empty = try await client.json(.get, "/registration/studentclasses?\(credentials)")
            #expect(empty.body == #"{"classes":[],"waitlist":[]}"#)

            // Wrong credentials are an invalid value (200 with an error); missing ones are a 400.
            Self.expectSingle(try await client.json(.get, "/registration/registerclass?redid=123456003&password=wrong&courseid=7030"), "error", "Invalid Red Id or password")
            Self.expectSingle(try await client.json(.get, "/registration/studentclasses?redid=999999999&password=password"), "error", "Invalid Red Id or password")
            Self.expectSingle(try await client.json(.get, "/registration/resetstudent?redid=12&password=password"), "error", "Invalid Red Id or password")
            Self.expectBadRequest(try await client.json(.get, "/registration/registerclass?\(credentials)"))
            Self.expectBadRequest(try await client.json(.get, "/registration/registerclass?\(credentials)&courseid=abc"))
            Self.expectBadRequest(try await client.json(.get, "/registration/studentclasses?redid=123456003"))
            Self.expectBadRequest(try await client.json(.post, "/registration/registerclass", body: #"{"redid":"123456003","password":"password","courseid":[7030]}"#))
        }
    }

    @Test func handWrittenClassDetailsEscapeLikeJSONEncoder() throws {
        let tricky = "Quotes \" and \\ backslash, tab\t, newline\n, bell \u{07}, slash / and café ☕ \u{1F}"
        let info = CatalogClass(
            id: 42, term: "t", subjectID: 1, subjectCode: "CS", department: tricky, college: "Science",
            courseNumber: CourseNumber(number: 799, suffix: "A"), title: "T\u{0C}\u{08}\r", fullTitle: tricky,
            description: tricky, prerequisite: "", units: "3.0", section: "01", scheduleNumber: "1",
            instructors: ["A. B", "C. \"D\""], meetingType: "Lecture", meetings: [.tba()]
        )
        let details = SDSUClassDetails(ClassListing(info: info, seats: SeatCount(seats: 5, enrolled: 3, held: 1, waitlist: 2, revision: 0)))
        let handWritten = try JSONSerialization.jsonObject(with: Data(SDSUJSON.classDetails(details).utf8)) as? NSDictionary
        let encoded = try JSONSerialization.jsonObject(with: try GatewayJSON.encoder().encode(details)) as? NSDictionary
        #expect(handWritten != nil && handWritten == encoded)
        #expect(!SDSUJSON.classDetails(details).contains("\\/"), "slashes are not escaped")
    }

    @Test func handWrittenIDListsAreJSONEncodersBytes() throws {
        for ids: [Int64] in [[], [7033], [1, 22, 333, Int64.max, Int64.min, 0, -5]] {
            #expect(SDSUJSON.idList(ids) == String(decoding: try GatewayJSON.sharedEncoder.encode(ids), as: UTF8.self))
        }
    }

    /// Keys of a flat JSON object in the order they are written (no string contains a quote).
    static func keyOrder(_ text: String) -> [String] {
        text.matches(of: /"([^"]+)":/).map { String($0.output.1) }
    }

    @Test(arguments: TestBackend.all) func catalogAnswersWriteKeysInTheSeedsOrder(_ backend: TestBackend) async throws {
        let gateway = try await RegistrationGateway.registration(backend)
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            let details = try await client.json(.get, "/registration/classdetails?classid=7036")
            // The order of seed 000's classdetails sample.
            #expect(Self.keyOrder(details.body) == [
                "description", "department", "suffix", "building", "startTime", "meetingType", "section", "endTime",
                "enrolled", "days", "prerequisite", "title", "id", "instructor", "schedule#", "units", "room",
                "waitlist", "seats", "fullTitle", "subject", "course#",
            ])
            let subjects = try await client.json(.get, "/registration/subjectlist")
            #expect(subjects.body.hasPrefix(#"[{"title":"#))
            let order = Self.keyOrder(subjects.body)
            #expect(order.count % 4 == 0 && order.count >= 8)
            for start in stride(from: 0, to: order.count, by: 4) {
                #expect(Array(order[start..<start + 4]) == ["title", "id", "college", "classes"])
            }
        }
    }

    @Test(arguments: TestBackend.all) func unknownURLsAnswer404WithHTML(_ backend: TestBackend) async throws {
        let gateway = try await RegistrationGateway.registration(backend)
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            for (method, uri) in [(HTTPRequest.Method.get, "/registration/subjectlists"), (.get, "/registration/SubjectList"), (.post, "/registration/subjectlist"), (.delete, "/registration/resetstudent")] {
                let reply = try await client.json(method, uri)
                #expect(reply.status == .notFound, "\(method) \(uri)")
                #expect(reply.contentType?.hasPrefix("text/html") == true, "\(method) \(uri)")
                #expect(reply.body.contains("<html>"))
            }
            // Outside the prefix, errors are problem documents as usual.
            #expect(try await client.json(.get, "/v1/nope").contentType == "application/problem+json")
        }
    }
}

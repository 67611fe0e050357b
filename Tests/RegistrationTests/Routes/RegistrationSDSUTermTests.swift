import AuthTestSupport
import Catalog
import Foundation
import HTTPTypes
import HummingbirdTesting
import Registration
import TestSupport
import Testing

/// The SDSU protocol serves one term (`--sdsu-term`), whatever else is imported: with the
/// umd.io summer 2020 file (term `202005`, whose ASTR classes land in subject 2) beside the
/// seed's fixtures, every `/registration/` answer for the demo term is byte for byte what it was
/// before the import, and the other term's classes are unknown classes.
@Suite("SDSU protocol: one term")
struct RegistrationSDSUTermTests {
    static let student = (redID: "123456003", password: "password")
    static var credentials: String { "redid=\(student.redID)&password=\(student.password)" }

    /// Read-only requests whose answers must not change when another term is imported.
    static let reads: [(HTTPRequest.Method, String, String?)] = [
        (.get, "/registration/subjectlist", nil),
        (.get, "/registration/classidslist?subjectid=2", nil),
        (.get, "/registration/classidslist?subjectid=8", nil),
        (.get, "/registration/classidslist?subjectid=8&level=graduate&starttime=1730", nil),
        (.get, "/registration/classidslist?subjectid=2&level=lower&endtime=1500", nil),
        (.post, "/registration/classidslist", #"{"subjectids":[2,8],"level":"upper"}"#),
        (.get, "/registration/classdetails?classid=7036", nil),
        (.get, "/registration/classdetails?classid=7000", nil),
        (.post, "/registration/classdetails", #"{"classids":[7036,7001]}"#),
        (.get, "/registration/studentclasses?\(credentials)", nil),
    ]

    static func answers(_ client: some TestClientProtocol) async throws -> [String] {
        var bodies: [String] = []
        for (method, uri, body) in reads {
            let reply = try await client.json(method, uri, body: body)
            #expect(reply.status == .ok, "\(uri)")
            bodies.append("\(reply.status.code) \(reply.contentType ?? "") \(reply.body)")
        }
        return bodies
    }

    static func importUMD(_ gateway: RegistrationGateway) async throws {
        let report = try await gateway.registration.admin.importCatalog(try UMDIOCatalogFormat.parse(try Fixture.umdio()))
        #expect(report.classes.created > 2000)
    }

    /// The umd.io classes of subject 2 (ASTR), which a term-blind protocol would list.
    static func otherTermClasses(_ gateway: RegistrationGateway) async throws -> [Int64] {
        try await gateway.catalog.catalog.classIDs(matching: ClassQuery(subjectIDs: [2], term: "202005"))
    }

    @Test func theDemoTermAnswersByteForByteAsBeforeAnotherTermWasImported() async throws {
        let gateway = try await RegistrationGateway.registration()
        defer { gateway.cleanUp() }
        let studentID = try await gateway.student(Self.student.redID, password: Self.student.password)
        try await gateway.registration.enrollment.register(studentID: studentID, classID: 7033)
        _ = try await gateway.registration.enrollment.joinWaitlist(studentID: studentID, classID: 7036)
        let captured = Captured<[String]>([])
        try await gateway.withRouter { client in captured.set(try await Self.answers(client)) }
        let before = captured.value
        #expect(before[0].contains(#""id":2"#) && before[0].contains(#""classes":33"#))

        try await Self.importUMD(gateway)
        let foreign = try await Self.otherTermClasses(gateway)
        #expect(!foreign.isEmpty, "the umd.io file has ASTR classes in subject 2")
        let other = try #require(foreign.first)
        // A v1 enrollment in the other term: the SDSU protocol neither shows nor resets it.
        try await gateway.registration.enrollment.register(studentID: studentID, classID: other)

        try await gateway.withRouter { client in
            #expect(try await Self.answers(client) == before, "every read answers as before the import")
            let subjects = try await client.json(.get, "/registration/subjectlist").body
            #expect(!subjects.contains("Unassigned"))

            // The other term's classes are unknown classes, for every operation.
            func same(_ uri: (Int64) -> String, _ sourceLocation: SourceLocation = #_sourceLocation) async throws {
                let unknown = try await client.json(.get, uri(999_999))
                let foreign = try await client.json(.get, uri(other))
                #expect(foreign.status == unknown.status && foreign.body == unknown.body, "\(uri(other)): \(foreign.body)", sourceLocation: sourceLocation)
                #expect(foreign.body == #"{"error":"No such course"}"#, sourceLocation: sourceLocation)
            }
            try await same { "/registration/classdetails?classid=\($0)" }
            for operation in ["registerclass", "waitlistclass", "unregisterclass", "unwaitlistclass"] {
                try await same { "/registration/\(operation)?\(Self.credentials)&courseid=\($0)" }
            }
            let mixed = try await client.json(.post, "/registration/classdetails", body: #"{"classids":[7036,\#(other)]}"#)
            let alone = try await client.json(.post, "/registration/classdetails", body: #"{"classids":[7036]}"#)
            #expect(mixed.body == alone.body)
            let post = try await client.json(.post, "/registration/registerclass", body: #"{"redid":"\#(Self.student.redID)","password":"password","courseid":\#(other)}"#)
            #expect(post.body == #"{"error":"No such course"}"#)

            // Reset empties the demo term and leaves the other term's enrollment alone.
            #expect(try await client.json(.get, "/registration/resetstudent?\(Self.credentials)").body == #"{"ok":"Student reset"}"#)
            #expect(try await client.json(.get, "/registration/studentclasses?\(Self.credentials)").body == #"{"classes":[],"waitlist":[]}"#)
        }
        let everything = try await gateway.registration.enrollment.schedule(studentID: studentID)
        #expect(everything.enrollments.map(\.classID) == [other])
        #expect(everything.waitlist.isEmpty)
    }

    @Test func theConfiguredTermIsTheOneServed() async throws {
        let gateway = try await RegistrationGateway.registration { $0.sdsuTerm = "202005" }
        defer { gateway.cleanUp() }
        try await Self.importUMD(gateway)
        let expected = try await gateway.catalog.catalog.subjects(inTerm: "202005")
        #expect(expected.count > 100)
        let foreign = try await Self.otherTermClasses(gateway)
        try await gateway.withRouter { client in
            let list = try #require(try JSONSerialization.jsonObject(with: Data(try await client.json(.get, "/registration/subjectlist").body.utf8)) as? [[String: Any]])
            #expect(list.map { ($0["id"] as? Int).map(Int64.init) ?? -1 } == expected.map(\.id))
            let astronomy = try #require(list.first { ($0["id"] as? Int) == 2 })
            #expect(astronomy["classes"] as? Int == foreign.count, "subject 2 counts only this term's classes")
            let ids = try await client.json(.get, "/registration/classidslist?subjectid=2").body
            #expect(ids == "[" + foreign.map(String.init).joined(separator: ",") + "]")
            #expect(try await client.json(.get, "/registration/classidslist?subjectid=8").body == "[]")
            #expect(try await client.json(.get, "/registration/classdetails?classid=7036").body == #"{"error":"No such course"}"#)
            let details = try await client.json(.get, "/registration/classdetails?classid=\(foreign[0])")
            #expect((try JSONSerialization.jsonObject(with: Data(details.body.utf8)) as? [String: Any])?["subject"] as? String == "ASTR")
        }
    }

    /// A subject's title belongs to a term: importing another term that renames a subject the
    /// SDSU term shares ("Computer Science" to "Computer Sciences") leaves every SDSU answer byte
    /// for byte as it was, and gives the other term its own title. Before, the import renamed
    /// the subject everywhere ("Geography" became "Geographical Sciences" in the SDSU term).
    @Test(arguments: TestBackend.all) func anotherTermsImportKeepsTheSDSUTermsSubjectTitles(_ backend: TestBackend) async throws {
        let gateway = try await RegistrationGateway.registration(backend)
        defer { gateway.cleanUp() }
        let studentID = try await gateway.student(Self.student.redID, password: Self.student.password)
        try await gateway.registration.enrollment.register(studentID: studentID, classID: 7033)
        let captured = Captured<[String]>([])
        try await gateway.withRouter { client in captured.set(try await Self.answers(client)) }
        let before = captured.value
        #expect(before[0].contains("Computer Science\""))

        for (term, title) in [("2019-spring", "Computer Sciences"), ("2019-fall", "Computing")] {
            let file = #"""
                {"term":"\#(term)","subjects":[{"code":"CS","title":"\#(title)","college":"Sciences"}],
                 "courses":[{"subject":"CS","number":"101","title":"INTRO"}],
                 "classes":[{"subject":"CS","course":"101","section":"01","scheduleNumber":"1","seats":5}]}
                """#
            let report = try await gateway.registration.admin.importCatalog(try NativeCatalogFormat.parse(Data(file.utf8)))
            #expect(report.subjects.updated == 1 && report.rejected.isEmpty)
        }
        try await gateway.withRouter { client in
            let after = try await Self.answers(client)
            #expect(after == before, "every SDSU read answers as before the other terms' imports")
        }
        #expect(try await gateway.catalog.catalog.subjects(inTerm: "2019-spring").first { $0.code == "CS" }?.title == "Computer Sciences")
        #expect(try await gateway.catalog.catalog.subjects(inTerm: "2019-fall").first { $0.code == "CS" }?.title == "Computing")
        #expect(try await gateway.catalog.catalog.subjects(inTerm: DemoCatalog.term).first { $0.code == "CS" }?.title == "Computer Science")
        let spring = try await gateway.catalog.catalog.classIDs(matching: ClassQuery(term: "2019-spring"))
        #expect(try await gateway.catalog.catalog.classListing(id: try #require(spring.first))?.info.department == "Computer Sciences")
        // The SDSU term's own re-import with a new title renames it there.
        let own = #"""
            {"term":"\#(DemoCatalog.term)","subjects":[{"code":"CS","title":"Computer Science and Engineering","college":"Sciences"}],
             "classes":[{"subject":"CS","course":"101","section":"02","scheduleNumber":"99998","seats":5}]}
            """#
        _ = try await gateway.registration.admin.importCatalog(try NativeCatalogFormat.parse(Data(own.utf8)))
        #expect(try await gateway.catalog.catalog.subjects(inTerm: DemoCatalog.term).first { $0.code == "CS" }?.title == "Computer Science and Engineering")
        #expect(try await gateway.catalog.catalog.subjects(inTerm: "2019-fall").first { $0.code == "CS" }?.title == "Computing")
    }
}

import AuthTestSupport
import TestSupport
import HTTPTypes
import Catalog
import Contracts
import Foundation
import GatewayCore
import HummingbirdTesting
import Registration
import Testing

/// Admin catalog management over the Registration module's routes (``RegistrationGateway``):
/// strict uploads and single classes (create, replace, delete). What the catalog then lists is
/// read from the Catalog's service on the same database (its `/v1/registration/classes` routes
/// are the Catalog module's, tested in CatalogTests). (The upload size limits are the
/// application's front door, tested in GatewayTests' RegistrationImportLimitTests.)
@Suite("Admin catalog management over HTTP")
struct RegistrationAdminCatalogTests {
    @Test(arguments: TestBackend.all) func aStrictUploadWithABadRowAppliesNothingAndAnswers422(_ backend: TestBackend) async throws {
        let gateway = try await RegistrationGateway.registration(backend)
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("root", role: .admin)
        let catalog = #"""
            {"term":"2019-spring","subjects":[{"code":"XYZ","title":"Xylophony","college":"Arts"}],
             "courses":[{"subject":"XYZ","number":"101","title":"XYLO I"}],
             "classes":[{"subject":"XYZ","course":"101","section":"01","scheduleNumber":"1","seats":5},
                        {"subject":"XYZ","course":"999","section":"01","scheduleNumber":"2","seats":5}]}
            """#
        try await gateway.withRouter { client in
            let strict = try await client.json(.post, "/v1/admin/registration/imports?format=native&strict=true", body: catalog, token: admin)
            #expect(strict.status == .unprocessableContent)
            #expect(strict.object["applied"] as? Bool == false)
            let rejected = try #require(strict.object["rejected"] as? [[String: String]])
            #expect(rejected.count == 1 && rejected[0]["row"] == "classes[1]" && rejected[0]["reason"]?.contains("unknown course") == true)
            let subjects = try await client.json(.get, "/v1/registration/subjects")
            #expect(!subjects.body.contains("XYZ"), "nothing of the strict upload was applied")

            let lenient = try await client.json(.post, "/v1/admin/registration/imports?format=native", body: catalog, token: admin)
            #expect(lenient.status == .ok)
            #expect((lenient.object["classes"] as? [String: Int])?["created"] == 1)
        }
    }

    @Test(arguments: TestBackend.all) func adminsCreateReplaceAndDeleteSingleClasses(_ backend: TestBackend) async throws {
        let gateway = try await RegistrationGateway.registration(backend)
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("root", role: .admin)
        let student = try await gateway.account("sam", role: .student)
        let newClass = #"{"term":"2018-fall","subject":"CS","course":"540","section":"02","scheduleNumber":"29999","seats":30,"instructors":["A. TURING"],"meetings":[{"days":"MW","start":"0800","end":"0915","building":"GMCS","room":"101"}]}"#
        try await gateway.withRouter { client in
            #expect(try await client.json(.post, "/v1/admin/registration/classes", body: newClass, token: student).status == .forbidden)
            let created = try await client.json(.post, "/v1/admin/registration/classes", body: newClass, token: admin)
            #expect(created.status == .created)
            let id = try #require(created.object["id"] as? Int)
            #expect(created.headers[.location] == "/v1/registration/classes/\(id)")
            #expect(created.object["seats"] as? Int == 30)
            #expect(try await gateway.registration.catalog.classListing(id: Int64(id)) != nil, "the catalog lists it")

            let sameID = try await client.json(
                .post, "/v1/admin/registration/classes",
                body: newClass.replacingOccurrences(of: "{\"term\"", with: "{\"id\":\(id),\"term\"").replacingOccurrences(of: "29999", with: "29995"), token: admin
            )
            #expect(sameID.status == .unprocessableContent, "an existing id is refused inside the import transaction")
            let duplicate = try await client.json(.post, "/v1/admin/registration/classes", body: newClass, token: admin)
            #expect(duplicate.status == .unprocessableContent)
            #expect((duplicate.object["detail"] as? String)?.contains("29999") == true)

            let replaced = try await client.json(
                .put, "/v1/admin/registration/classes/\(id)", body: newClass.replacingOccurrences(of: "\"seats\":30", with: "\"seats\":12"), token: admin
            )
            #expect(replaced.status == .ok)
            #expect(replaced.object["seats"] as? Int == 12)

            let fixedID = #"{"term":"2018-fall","subject":"CS","course":"540","section":"03","scheduleNumber":"29998","seats":5}"#
            #expect(try await client.json(.put, "/v1/admin/registration/classes/9001", body: fixedID, token: admin).status == .created)
            #expect(try await client.json(.get, "/registration/classdetails?classid=9001").status == .ok, "the SDSU protocol sees it too")

            let mismatch = #"{"id":5,"term":"2018-fall","subject":"CS","course":"540","section":"03","scheduleNumber":"29998","seats":5}"#
            #expect(try await client.json(.put, "/v1/admin/registration/classes/9001", body: mismatch, token: admin).status == .unprocessableContent)
            let unknownCourse = #"{"term":"2018-fall","subject":"CS","course":"999","section":"01","scheduleNumber":"29997","seats":5}"#
            #expect(try await client.json(.post, "/v1/admin/registration/classes", body: unknownCourse, token: admin).status == .unprocessableContent)
            let noTerm = #"{"subject":"CS","course":"540","section":"01","scheduleNumber":"29996","seats":5}"#
            #expect(try await client.json(.post, "/v1/admin/registration/classes", body: noTerm, token: admin).status == .unprocessableContent)
            #expect(try await client.json(.post, "/v1/admin/registration/classes", body: #"{"subject":"CS"}"#, token: admin).status == .badRequest)

            // A deleted class's id is never handed to a new class.
            let highest = try #require(
                try await client.json(.post, "/v1/admin/registration/classes", body: newClass.replacingOccurrences(of: "29999", with: "29990"), token: admin)
                    .object["id"] as? Int
            )
            #expect(try await client.json(.delete, "/v1/admin/registration/classes/\(highest)", token: admin).status == .ok)
            let next = try await client.json(.post, "/v1/admin/registration/classes", body: newClass.replacingOccurrences(of: "29999", with: "29991"), token: admin)
            #expect(next.object["id"] as? Int == highest + 1)
        }
    }

    @Test(arguments: TestBackend.all) func deletingAClassWithStudentsNeedsDropStudentsAndTellsThem(_ backend: TestBackend) async throws {
        let gateway = try await RegistrationGateway.registration(backend)
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("root", role: .admin)
        let enrolled = try await gateway.student("100000001")
        let waiting = try await gateway.student("100000002")
        try await gateway.openSeats(1, in: 7030)
        try await gateway.registration.enrollment.register(studentID: enrolled, classID: 7030)
        _ = try await gateway.registration.enrollment.joinWaitlist(studentID: waiting, classID: 7030)
        try await gateway.withRouter { client in
            let refused = try await client.json(.delete, "/v1/admin/registration/classes/7030", token: admin)
            #expect(refused.status == .conflict)
            #expect(refused.object["type"] as? String == "/problems/class-has-students")
            #expect(refused.object["students"] as? Int == 2)
            #expect(try await gateway.registration.catalog.classListing(id: 7030) != nil, "nothing was deleted")

            let deleted = try await client.json(.delete, "/v1/admin/registration/classes/7030?dropStudents=true", token: admin)
            #expect(deleted.status == .ok)
            #expect(deleted.object["droppedAccountIds"] as? [Int] == [Int(enrolled), Int(waiting)].sorted())
            #expect(try await gateway.registration.catalog.classListing(id: 7030) == nil, "the catalog lists it no more")
            #expect(try await client.json(.get, "/registration/classdetails?classid=7030").body == "{\"error\":\"No such course\"}")
            #expect(try await client.json(.delete, "/v1/admin/registration/classes/7030", token: admin).status == .notFound)
        }
        #expect(try await gateway.registration.enrollment.schedule(studentID: enrolled).enrollments.isEmpty)
        #expect(try await gateway.registration.enrollment.schedule(studentID: waiting).waitlist.isEmpty)
        let jobs = try await gateway.jobs(kind: PushJobs.classCancelled.name)
        #expect(jobs.count == 1)
        #expect(jobs.first?.args.contains("\"accountIds\":[\(min(enrolled, waiting)),\(max(enrolled, waiting))]") == true)
    }
}

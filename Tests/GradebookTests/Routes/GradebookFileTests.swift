import AuthTestSupport
import Foundation
import GatewayCore
import Gradebook
import GradebookSimulator
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOFoundationEssentialsCompat
import TestSupport
import Testing

/// Pictures, feedback and submitted work through the Gradebook module's routes (``GradebookGateway``): the lab clients' sequence
/// (`auth.txt`, `grades.json`, then the file links in the records) against the gradebook
/// simulator on a loopback port, the v1 links, the types passed inline, and the limits.
@Suite("Gradebook files through the gateway")
struct GradebookFileTests {
    static let password = "gradebook-test-1"
    static let htmlFile = 99_001

    static func basic(_ user: String, _ password: String = GradebookFileTests.password) -> HTTPFields {
        [.authorization: "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()]
    }

    /// The demo data, with an HTML feedback file on one of jdoe's scores.
    static func data() -> SimulatorData {
        var data = SimulatorData.demo
        outer: for s in data.sections.indices {
            for a in data.sections[s].assignments.indices {
                for k in data.sections[s].assignments[a].scores.indices
                where data.sections[s].assignments[a].scores[k].username == "jdoe" && data.sections[s].assignments[a].scores[k].feedback == nil {
                    data.sections[s].assignments[a].scores[k].feedback = SimulatedFile(id: htmlFile, fileExtension: "html", mimetype: "text/html")
                    break outer
                }
            }
        }
        return data
    }

    /// Runs `body` with a gateway whose source 3 is the simulator at `/cgi-bin/` on a live port.
    static func withRig(
        maxFileBytes: Int = 10 << 20, _ body: @Sendable @escaping (GradebookGateway, any TestClientProtocol) async throws -> Void
    ) async throws {
        try await GradebookGateway.withSimulator(
            data(), make: { try await GradebookGateway.make(maxFileBytes: maxFileBytes) },
            source: { GradebookSource(id: 3, name: "Simulator", baseURL: $0, requestsPerMinute: 60_000, development: true) }
        ) { gateway, _ in
            try await gateway.withRouter { client in try await body(gateway, client) }
        }
    }

    static func object(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
    }

    /// The file links of jdoe's records, as a lab client finds them: their picture and every
    /// feedback and submitted-work url, section by section.
    static func jdoeLinks(_ client: some TestClientProtocol) async throws -> (picture: String, files: [String]) {
        let sections = try object(try await client.execute(uri: "/gradebook/3/grades.json?record=sections", method: .get, headers: basic("jdoe")))
        var picture = ""
        var files: [String] = []
        for section in sections["sections"] as? [[String: Any]] ?? [] {
            let term = section["term"] as? Int ?? 0, course = section["course"] as? String ?? ""
            let enrollments = try await client.execute(uri: "/gradebook/3/grades.json?record=enrollments&term=\(term)&course=\(course)", method: .get, headers: basic("jdoe"))
            #expect(!String(buffer: enrollments.body).contains("cgi-bin"), "no upstream path is left in the record")
            for enrollment in try object(enrollments)["enrollments"] as? [[String: Any]] ?? [] where enrollment["username"] as? String == "jdoe" {
                picture = (enrollment["picture"] as? [String: Any])?["url"] as? String ?? ""
            }
            let scores = try await client.execute(uri: "/gradebook/3/grades.json?record=userscores&term=\(term)&course=\(course)&user=jdoe", method: .get, headers: basic("jdoe"))
            for assignment in try object(scores)["userscores"] as? [[String: Any]] ?? [] {
                for score in assignment["scores"] as? [[String: Any]] ?? [] {
                    for key in ["feedback", "student_work"] {
                        if let url = (score[key] as? [String: Any])?["url"] as? String { files.append(url) }
                    }
                }
            }
        }
        return (picture, files)
    }

    static func expectFileHeaders(_ response: TestResponse, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response.headers[.xContentTypeOptions] == "nosniff", sourceLocation: sourceLocation)
        #expect(response.headers[.contentSecurityPolicy] == "default-src 'none'; sandbox", sourceLocation: sourceLocation)
        #expect(response.headers[.cacheControl] == "private, no-store", sourceLocation: sourceLocation)
    }

    @Test func aLabClientFollowsPictureAndFeedbackLinksThroughTheProxy() async throws {
        try await Self.withRig { _, client in
            let probe = try await client.execute(uri: "/gradebook/3/auth.txt", method: .get, headers: Self.basic("jdoe"))
            #expect(String(buffer: probe.body) == "access\n")
            let (picture, files) = try await Self.jdoeLinks(client)
            #expect(picture.hasPrefix("/gradebook/3/file_download?file="))
            #expect(!files.isEmpty && files.allSatisfy { $0.hasPrefix("/gradebook/3/file_download?file=") })
            #expect(files.contains { $0.contains("file=\(Self.htmlFile)&") }, "jdoe's HTML feedback is linked")

            let image = try await client.execute(uri: picture, method: .get, headers: Self.basic("jdoe"))
            #expect(image.status == .ok)
            #expect(image.headers[.contentType] == "image/png")
            #expect(image.headers[.contentDisposition]?.hasPrefix("inline") == true)
            #expect(Array(image.body.readableBytesView.prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
            Self.expectFileHeaders(image)
            let head = try await client.execute(uri: picture, method: .head, headers: Self.basic("jdoe"))
            #expect(head.status == .ok && head.body.readableBytes == 0)
            #expect(head.headers[.contentLength] == String(image.body.readableBytes))

            var types: [String: String] = [:]
            for url in files {
                let file = try await client.execute(uri: url, method: .get, headers: Self.basic("jdoe"))
                #expect(file.status == .ok, "\(url)")
                Self.expectFileHeaders(file)
                types[url] = file.headers[.contentType]
                if url.contains("file=\(Self.htmlFile)&") {
                    // An HTML file upstream is a download, never a page of the gateway.
                    #expect(file.headers[.contentType] == "application/octet-stream")
                    #expect(file.headers[.contentDisposition]?.hasPrefix("attachment") == true)
                    #expect(String(buffer: file.body).contains("<script>"))
                } else if file.headers[.contentType] == "application/pdf" {
                    #expect(file.headers[.contentDisposition]?.hasPrefix("inline") == true)
                    #expect(String(buffer: file.body).hasPrefix("%PDF-"))
                }
            }
            #expect(types.values.contains("application/pdf"), "a feedback PDF is inline")
            #expect(types.values.contains("application/octet-stream"), "the HTML and the zip files are attachments")
            #expect(!types.values.contains { $0.contains("html") })
        }
    }

    @Test func wrongCredentialsAndBadQueriesAreRefusedAsTheProtocolDoes() async throws {
        try await Self.withRig { _, client in
            let (picture, _) = try await Self.jdoeLinks(client)
            for headers in [Self.basic("jdoe", "wrong password"), [:]] {
                let refused = try await client.execute(uri: picture, method: .get, headers: headers)
                #expect(refused.status == .unauthorized)
                #expect(refused.headers[.wwwAuthenticate]?.hasPrefix("Basic") == true)
                #expect(refused.headers[.contentType] == "application/json")
            }
            // Another student's picture: the upstream's refusal string, as for records.
            let stranger = try await client.execute(uri: picture, method: .get, headers: Self.basic("asmith"))
            #expect(String(buffer: stranger.body).hasPrefix("\"Incorrect permission"))
            #expect(stranger.headers[.contentType] == "application/json")
            let bad = [
                "/gradebook/3/file_download?name=feedback", "/gradebook/3/file_download?file=1&name=..%2F..%2Fetc%2Fpasswd",
                "/gradebook/3/file_download?file=1&name=" + String(repeating: "x", count: 300),
                "/gradebook/3/file_download?file=1" + (0..<20).map { "&p\($0)=1" }.joined(),
            ]
            for uri in bad {
                let reply = try await client.execute(uri: uri, method: .get, headers: Self.basic("jdoe"))
                #expect(reply.status == .badRequest, "\(uri)")
                #expect(reply.headers[.contentType] == "application/json")
            }
            let unknown = try await client.execute(uri: "/gradebook/3/file_download?file=123456", method: .get, headers: Self.basic("jdoe"))
            #expect(unknown.status == .notFound)
            #expect(String(buffer: unknown.body) == "\"No such file\"")
        }
    }

    @Test func v1LinksServeTheSignedInOwnerOfTheStoredAccount() async throws {
        try await Self.withRig { gateway, client in
            let ada = try await gateway.account("ada", role: .student)
            let bob = try await gateway.account("bob", role: .student)
            let stored = try await client.json(.post, "/v1/me/gradebook-accounts", body: #"{"sourceId": 3, "username": "jdoe", "password": "\#(Self.password)"}"#, token: ada)
            #expect(stored.status == .created)
            let sections = try await client.json(.get, "/v1/gradebook/3/sections", token: ada)
            let section = try #require((sections.object["items"] as? [[String: Any]])?.first)
            let path = "/v1/gradebook/3/sections/\(section["term"] as? Int ?? 0)/\(section["course"] as? String ?? "")"
            let enrollments = try await client.json(.get, "\(path)/enrollments", token: ada)
            let mine = try #require((enrollments.object["items"] as? [[String: Any]])?.first { $0["username"] as? String == "jdoe" })
            let picture = try #require(mine["pictureUrl"] as? String)
            #expect(picture.hasPrefix("/v1/gradebook/3/file_download?file="))

            let image = try await client.execute(uri: picture, method: .get, headers: [.authorization: "Bearer \(ada)"])
            #expect(image.status == .ok)
            #expect(image.headers[.contentType] == "image/png")
            Self.expectFileHeaders(image)
            let withBasic = try await client.execute(uri: picture, method: .get, headers: Self.basic("jdoe"))
            #expect(withBasic.status == .ok)
            // Bob stores no account for the source: he gets a problem, never Ada's file.
            let bobs = try await client.json(.get, picture, token: bob)
            #expect(bobs.status == .unauthorized)
            #expect(bobs.contentType == "application/problem+json")
            #expect(try await client.json(.get, picture).status == .unauthorized)
            // Another gradebook user's credentials: the upstream's refusal, as a problem.
            let stranger = try await client.json(.get, picture, headers: Self.basic("asmith"))
            #expect(stranger.status == .forbidden)
            #expect(stranger.object["type"] as? String == "/problems/upstream-permission")

            let assignments = try await client.json(.get, "\(path)/enrollments/jdoe/assignments", token: ada)
            let links = (assignments.object["items"] as? [[String: Any]] ?? []).flatMap { $0["scores"] as? [[String: Any]] ?? [] }
                .flatMap { [$0["feedbackUrl"], $0["submittedWorkUrl"]].compactMap { $0 as? String } }
            #expect(!links.isEmpty && links.allSatisfy { $0.hasPrefix("/v1/gradebook/3/file_download?") })
            for link in links.prefix(4) {
                let file = try await client.execute(uri: link, method: .get, headers: [.authorization: "Bearer \(ada)"])
                #expect(file.status == .ok, "\(link)")
                #expect(["application/pdf", "application/octet-stream"].contains(file.headers[.contentType] ?? ""), "\(link)")
            }
            let invalid = try await client.json(.get, "/v1/gradebook/3/file_download?name=..", token: ada)
            #expect(invalid.status == .unprocessableContent)
            #expect(invalid.contentType == "application/problem+json")
        }
    }

    @Test func filesOverTheSizeLimitAreAnUpstreamFailure() async throws {
        try await Self.withRig(maxFileBytes: 32) { _, client in
            let (picture, _) = try await Self.jdoeLinks(client)
            let compat = try await client.execute(uri: picture, method: .get, headers: Self.basic("jdoe"))
            #expect(compat.status == .badGateway)
            #expect(compat.headers[.contentType] == "application/json")
            let v1 = try await client.json(.get, picture.replacingOccurrences(of: "/gradebook/3/", with: "/v1/gradebook/3/"), headers: Self.basic("jdoe"))
            #expect(v1.status == .badGateway)
            #expect(v1.object["type"] as? String == "/problems/upstream-failed")
            #expect((v1.object["detail"] as? String)?.contains("32 bytes") == true)
        }
    }
}

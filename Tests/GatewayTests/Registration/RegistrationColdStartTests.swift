import Auth
import Foundation
import GatewayApp
import HTTPTypes
import HummingbirdTesting
import Testing

/// Issue 24: students arrive cold at registration opening. A password the gateway has just
/// verified (or set, with `addstudent`) serves every route without a second hash, and a server
/// whose hasher is saturated answers in the SDSU protocol's own form, never a 503 it doesn't know.
@Suite("SDSU protocol at registration opening")
struct RegistrationColdStartTests {
    @Test func aStudentJustAddedRegistersWithoutASecondHash() async throws {
        let gateway = try await TestGateway.registration()
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client async throws in
            let added = try await client.json(
                .post, "/registration/addstudent",
                body: #"{"redid": "600000001", "password": "benchpass1", "firstname": "Ada", "lastname": "L", "email": "ada@example.edu"}"#
            )
            #expect(added.body == #"{"ok":"Student Added"}"#)
            let before = gateway.app.auth.hasher.verificationCount
            let registered = try await client.json(.get, "/registration/registerclass?redid=600000001&password=benchpass1&courseid=7030")
            #expect(registered.body == #"{"ok":"Course added"}"#)
            #expect(gateway.app.auth.hasher.verificationCount == before, "the password set a moment ago was not hashed again")
            let wrong = try await client.json(.get, "/registration/studentclasses?redid=600000001&password=not-the-one")
            #expect(wrong.body == #"{"error":"Invalid Red Id or password"}"#, "a wrong password still is")
            #expect(gateway.app.auth.hasher.verificationCount == before + 1)
        }
    }

    @Test func aSaturatedHasherAnswersInTheProtocolsForm() async throws {
        let gateway = try await TestGateway.registration { config in
            // One slow hashing thread, and at most one waiting.
            config.passwordHashing = .init(memoryKiB: 64 * 1024, iterations: 3, parallelism: 1)
            config.passwordHashingThreads = 1
            config.passwordHashingQueue = 1
        }
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client async throws in
            let answers = try await withThrowingTaskGroup(of: HTTPReply.self) { group in
                for n in 0..<12 {
                    group.addTask {
                        try await client.json(.get, "/registration/studentclasses?redid=6000000\(10 + n)&password=guess-\(n)-ok")
                    }
                }
                return try await group.reduce(into: [HTTPReply]()) { $0.append($1) }
            }
            #expect(answers.allSatisfy { $0.status == .ok }, "\(answers.map(\.status))")
            let busy = answers.filter { $0.body.hasPrefix(#"{"error":"Server busy, try again in "#) }
            #expect(!busy.isEmpty, "some requests found the hasher full: \(answers.map(\.body))")
            #expect(busy.allSatisfy { Int($0.headers[.retryAfter] ?? "") ?? 0 >= 1 })
            #expect(answers.allSatisfy { $0.body.hasPrefix(#"{"error":"#) })
        }
    }
}

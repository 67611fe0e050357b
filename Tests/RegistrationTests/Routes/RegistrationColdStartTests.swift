import Auth
import AuthTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import TestSupport
import Testing

/// Issue 24: students arrive cold at registration opening. A password the gateway has just
/// verified (or set, with `addstudent`) serves every route without a second hash, and a server
/// whose hasher is saturated answers in the SDSU protocol's own form, never a 503 it doesn't know:
/// the Registration module's routes (``RegistrationGateway``) with Auth's real account directory.
@Suite("SDSU protocol at registration opening")
struct RegistrationColdStartTests {
    @Test func aStudentJustAddedRegistersWithoutASecondHash() async throws {
        let gateway = try await RegistrationGateway.registration()
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client async throws in
            let added = try await client.json(
                .post, "/registration/addstudent",
                body: #"{"redid": "600000001", "password": "benchpass1", "firstname": "Ada", "lastname": "L", "email": "ada@example.edu"}"#
            )
            #expect(added.body == #"{"ok":"Student Added"}"#)
            let before = gateway.auth.hasher.verificationCount
            let registered = try await client.json(.get, "/registration/registerclass?redid=600000001&password=benchpass1&courseid=7030")
            #expect(registered.body == #"{"ok":"Course added"}"#)
            #expect(gateway.auth.hasher.verificationCount == before, "the password set a moment ago was not hashed again")
            let wrong = try await client.json(.get, "/registration/studentclasses?redid=600000001&password=not-the-one")
            #expect(wrong.body == #"{"error":"Invalid Red Id or password"}"#, "a wrong password still is")
            #expect(gateway.auth.hasher.verificationCount == before + 1)
        }
    }

    /// After a restart nothing is cached: a student whose app sends a burst of requests at once
    /// costs one verification, not one per request, and every request is answered.
    @Test func aColdStudentsBurstSharesOneVerification() async throws {
        let first = try await RegistrationGateway.registration()
        defer { first.cleanUp() }
        try await first.student("600000002", password: "benchpass2")
        // The same file, served by a new instance: an empty credential cache.
        let restarted = try first.secondInstance(
            // Slow enough that the whole burst arrives while the first verification runs.
            hasher: PasswordHasher(parameters: .init(memoryKiB: 16 * 1024, iterations: 3, parallelism: 1), threads: 2)
        )
        defer { restarted.cleanUp() }
        try await restarted.withRouter { client async throws in
            let before = restarted.auth.hasher.verificationCount
            let answers = try await withThrowingTaskGroup(of: HTTPReply.self) { group in
                for _ in 0..<16 {
                    group.addTask { try await client.json(.get, "/registration/studentclasses?redid=600000002&password=benchpass2") }
                }
                return try await group.reduce(into: [HTTPReply]()) { $0.append($1) }
            }
            #expect(answers.allSatisfy { $0.status == .ok && !$0.body.hasPrefix(#"{"error""#) }, "\(answers.map(\.body))")
            #expect(restarted.auth.hasher.verificationCount - before <= 2, "the burst shared one verification")
            let wrong = try await client.json(.get, "/registration/studentclasses?redid=600000002&password=benchpass3")
            #expect(wrong.body == #"{"error":"Invalid Red Id or password"}"#)
        }
    }

    @Test func aSaturatedHasherAnswersInTheProtocolsForm() async throws {
        let gateway = try await RegistrationGateway.registration(
            // One slow hashing thread, and at most one waiting.
            hasher: PasswordHasher(parameters: .init(memoryKiB: 64 * 1024, iterations: 3, parallelism: 1), threads: 1, maxPending: 1)
        )
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

import Auth
import Foundation
import Testing

/// The hasher's line at registration opening: many students from one campus address, cold,
/// each with the right password, all get their turn; the line is bounded as a whole, by its
/// length and by how long a request may wait.
@Suite("The hasher's line")
struct HasherLineTests {
    static let cheap = PasswordHasher.Parameters(memoryKiB: 1024, iterations: 1, parallelism: 1)

    /// Before, one address held at most 8 places: the ninth student behind the NAT was told
    /// "busy" at once.
    @Test func studentsBehindOneAddressAreNeverRefusedForSharingIt() async throws {
        let hasher = PasswordHasher(parameters: Self.cheap, threads: 1)
        let stored = try await hasher.hash("a fine passphrase")
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<200 {
                group.addTask { (try? await hasher.verify("a fine passphrase", encoded: stored, client: "198.51.100.1")) == true }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 200 && results.allSatisfy { $0 }, "\(results.filter { !$0 }.count) refused")
        #expect(hasher.admission.clients == 0)
    }

    /// Guesses at names that don't exist (the decoy) and sign-ups keep an address's share.
    @Test func decoyVerificationsKeepTheAddressShare() async throws {
        let hasher = PasswordHasher(parameters: .owasp, threads: 1, maxPending: 64)
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<24 {
                group.addTask { (try? await hasher.verify("guess", encoded: nil, client: "203.0.113.9")) != nil }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.filter { !$0 }.count >= 1, "a flood of unknown names is refused beyond its share")
        #expect(results.filter { $0 }.count >= hasher.admission.perClient)
    }

    /// Past its length the line refuses at once, and a request whose turn comes after its wait
    /// ran out is told "busy" instead of being worked.
    @Test func theLineIsBoundedByLengthAndByWait() async throws {
        let hasher = PasswordHasher(parameters: .owasp, threads: 1, maxPending: 4, maxWait: .milliseconds(1))
        let stored = try await PasswordHasher(parameters: .owasp, threads: 1).hash("a fine passphrase")
        let outcomes = await withTaskGroup(of: String.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    do { return try await hasher.verify("a fine passphrase", encoded: stored) ? "ok" : "wrong" } catch AuthError.busy { return "busy" } catch { return "\(error)" }
                }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(outcomes.allSatisfy { $0 == "ok" || $0 == "busy" }, "\(outcomes)")
        // 8 refused for the line's length; of the 4 in line, those behind the first waited for an
        // argon2id verification at OWASP's cost (far more than 1 ms) and are refused too.
        #expect(outcomes.filter { $0 == "busy" }.count >= 11, "\(outcomes)")
    }
}

import GatewayCore
import Auth
import Contracts
import Foundation
import Testing

/// Findings of the security review on sign-in and sign-up, each shown on Auth itself.
@Suite("Sign-in and sign-up hardening")
struct SignInHardeningTests {
    /// A 1 MiB username is refused before the throttle keeps anything of it.
    @Test func oversizedUsernamesAreRefusedBeforeTheThrottle() async throws {
        let h = try AuthHarness()
        defer { h.cleanUp() }
        let huge = String(repeating: "u", count: 1 << 20)
        for n in 0..<20 {
            await #expect(throws: AuthError.invalidCredentials) {
                _ = try await h.auth.verifyCredentials(username: huge, password: "whatever it is", clientAddress: "203.0.113.\(n)")
            }
        }
        #expect(try h.throttleEntries() == 0)
        #expect(h.auth.hasher.verificationCount == 0, "nothing was hashed either")
        await #expect(throws: AccountDirectoryError.invalidCredentials) {
            _ = try await h.accounts.verifyPassword("pw", accountID: nil, signInName: huge, clientAddress: "203.0.113.1")
        }
        #expect(try h.throttleEntries() == 0)
        // An ordinary wrong sign-in is counted.
        await #expect(throws: AuthError.invalidCredentials) {
            _ = try await h.auth.verifyCredentials(username: "nobody", password: "whatever it is", clientAddress: "203.0.113.1")
        }
        #expect(try h.throttleEntries() > 0)
    }

    /// A taken username costs no hash, and sign-ups from one address are limited.
    @Test func signUpChecksTheUsernameFirstAndIsLimitedPerAddress() async throws {
        let h = try AuthHarness(signUpsPerHour: 3)
        defer { h.cleanUp() }
        _ = try await h.auth.createAccount(username: "ada", email: "ada@example.edu", password: "correct horse battery", role: .student)
        let hashes = h.auth.hasher.hashCount
        await #expect(throws: AuthError.accountExists(field: "username")) {
            _ = try await h.auth.createAccount(username: "ada", email: nil, password: "correct horse battery", role: .student, clientAddress: "198.51.100.1")
        }
        await #expect(throws: AuthError.accountExists(field: "email")) {
            _ = try await h.auth.createAccount(username: "ada2", email: "ada@example.edu", password: "correct horse battery", role: .student, clientAddress: "198.51.100.1")
        }
        #expect(h.auth.hasher.hashCount == hashes, "no argon2 hash for a taken username or email")
        _ = try await h.auth.createAccount(username: "bob", email: nil, password: "correct horse battery", role: .student, clientAddress: "198.51.100.1")
        await #expect(throws: AuthError.signUpThrottled(retryAfterSeconds: 3600)) {
            _ = try await h.auth.createAccount(username: "cyd", email: nil, password: "correct horse battery", role: .student, clientAddress: "198.51.100.1")
        }
        // Another address still signs up; operators (no address) are not counted.
        _ = try await h.auth.createAccount(username: "dee", email: nil, password: "correct horse battery", role: .student, clientAddress: "198.51.100.2")
        _ = try await h.auth.createAccount(username: "eve", email: nil, password: "correct horse battery", role: .student)
        // SDSU sign-ups count too.
        await #expect(throws: AccountDirectoryError.signUpThrottled(retryAfterSeconds: 3600)) {
            try await h.accounts.admitSignUp(from: "198.51.100.1")
        }
    }

    /// The tag in failed-sign-in logs is keyed: the same username tags differently under
    /// another server key, and it is not a plain SHA-256 prefix anyone can recompute.
    @Test func logFingerprintsAreKeyed() throws {
        let a = try AuthHarness(), b = try AuthHarness()
        defer { a.cleanUp(); b.cleanUp() }
        #expect(a.auth.logTag(for: "800000001") == a.auth.logTag(for: "800000001"))
        #expect(a.auth.logTag(for: "800000001") != b.auth.logTag(for: "800000001"))
        #expect(a.auth.logTag(for: "800000001").count == 16)
    }
}

/// The throttle and the hasher's fairness, through the service itself.
@Suite("Sign-in races and fairness")
struct SignInRaceTests {
    /// 64 wrong guesses at once for one user from one address: exactly five are hashed (before,
    /// every one passed the check while the first were still hashing).
    @Test func concurrentGuessesThroughTheServiceHashOnlyUpToTheLimit() async throws {
        let h = try AuthHarness()
        defer { h.cleanUp() }
        _ = try await h.auth.createAccount(username: "victim", email: nil, password: "correct horse battery", role: .student)
        let before = h.auth.hasher.verificationCount
        let auth = h.auth
        let outcomes = await withTaskGroup(of: String.self) { group in
            for _ in 0..<64 {
                group.addTask {
                    do {
                        _ = try await auth.verifyCredentials(username: "victim", password: "wrong guess", clientAddress: "198.51.100.7")
                        return "signed-in"
                    } catch AuthError.invalidCredentials {
                        return "wrong"
                    } catch AuthError.throttled {
                        return "throttled"
                    } catch {
                        return "other"
                    }
                }
            }
            return await group.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
        }
        #expect(outcomes["wrong"] == 5)
        #expect(outcomes["throttled"] == 59)
        #expect(h.auth.hasher.verificationCount - before == 5)
    }

    /// One client flooding the hasher gets its share refused; another client still gets in.
    @Test func oneClientCannotTakeTheWholeHasher() async throws {
        let hasher = PasswordHasher(parameters: .owasp, threads: 1, maxPending: 16)
        #expect(hasher.admission.perClient == 2)
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask { (try? await hasher.hash("a password of sorts", client: "203.0.113.9")) != nil }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.filter { !$0 }.count >= 1, "the flooding client is refused beyond its share")
        #expect(results.filter { $0 }.count >= 2)
        #expect(try await hasher.hash("another password", client: "198.51.100.1").hasPrefix("$argon2id$"))
        #expect(hasher.admission.clients == 0, "every place was given back")
    }
}

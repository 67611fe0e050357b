import Auth
import Foundation
import GatewayCore
import Testing

@Suite("Pure auth rules")
struct RulesTests {
    @Test(arguments: [
        ("short", false), ("password123", false), ("PassWord1", false), ("correct horse", true),
        ("12345678", false), ("analytical-engine", true),
    ])
    func passwordPolicy(password: String, acceptable: Bool) {
        #expect((PasswordPolicy.violation(password) == nil) == acceptable)
    }

    @Test func passwordMustDifferFromUsername() {
        #expect(PasswordPolicy.violation("ada.lovelace", username: "Ada.Lovelace") != nil)
    }

    @Test func usernamesNormalizeAndEmailsAreAccepted() throws {
        #expect(try Username.normalize("  Ada_L ").get() == "ada_l")
        #expect(try Username.normalize("Ada@Example.EDU").get() == "ada@example.edu")
        #expect(throws: UsernameError.length) { try Username.normalize("ab").get() }
        #expect(throws: UsernameError.characters) { try Username.normalize("ada lovelace").get() }
        #expect(throws: UsernameError.invalidEmail) { try Username.normalize("ada@localhost").get() }
    }

    @Test func productionHashesUseOWASPParametersAndVerify() async throws {
        let hasher = PasswordHasher(parameters: .owasp, threads: 1)
        let encoded = try await hasher.hash("correct horse battery")
        #expect(encoded.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
        #expect(try await hasher.verify("correct horse battery", encoded: encoded))
        #expect(try await !hasher.verify("correct horse batterz", encoded: encoded))
        #expect(try await !hasher.verify("correct horse battery", encoded: nil))
        let again = try await hasher.hash("correct horse battery")
        #expect(again != encoded, "every hash has its own salt")
    }

    @Test func constantTimeEqualityIsEquality() {
        #expect(constantTimeEquals(Array("secret".utf8), Array("secret".utf8)))
        #expect(!constantTimeEquals(Array("secret".utf8), Array("secreT".utf8)))
        #expect(!constantTimeEquals(Array("secret".utf8), Array("secrets".utf8)))
    }

    @Test func cursorsRoundTripAndRejectForgeries() throws {
        let cursor = PageCursor(after: ["Computer Science", "42"])
        #expect(try PageCursor(token: cursor.token) == cursor)
        #expect(throws: InvalidInput("The cursor is not one this server issued.", field: "cursor")) { try PageCursor(token: "%%%not-a-cursor") }
    }
}

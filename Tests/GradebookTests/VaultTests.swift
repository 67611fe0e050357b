import Crypto
import Foundation
import Gradebook
import Testing

/// Sealing and opening: the format, the row binding, tampering, unknown keys, and what
/// descriptions may show.
@Suite struct VaultTests {
    let account = VaultContext(table: "gradebook_accounts", rowID: 12, owner: 5)

    @Test func sealThenOpenGivesThePlaintextBack() throws {
        let ring = VaultKeyRing(current: .generate())
        for plaintext in ["hunter2", "", "pässwörd 🔑 with spaces", String(repeating: "x", count: 5000)] {
            let sealed = try ring.seal(plaintext, context: account)
            #expect(try ring.open(sealed, context: account) == plaintext)
            #expect(!sealed.contains(plaintext) || plaintext.isEmpty)
        }
        // A fresh nonce each time: the same plaintext never seals to the same text.
        #expect(try ring.seal("hunter2", context: account) != ring.seal("hunter2", context: account))
    }

    @Test func theSealedTextCarriesTheKeyID() throws {
        let key = VaultKey.generate()
        let sealed = try VaultKeyRing(current: key).seal("hunter2", context: account)
        let parts = sealed.split(separator: ".")
        #expect(parts.count == 3)
        #expect(parts[0] == "v1")
        #expect(parts[1] == key.id)
        #expect(key.id.count == 16 && key.id.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(parts[2].allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        #expect(try SealedSecret(parsing: sealed).keyID == key.id)
        #expect(try SealedSecret(parsing: sealed).text == sealed)
    }

    @Test func theKeyIDIsTheStartOfTheKeysSHA256() throws {
        let (bytes, _) = VaultTestKeys.material()
        let key = try #require(VaultKey(bytes: bytes))
        let digest = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
        #expect(key.id == String(digest.prefix(16)))
        #expect(VaultKey(bytes: bytes.dropLast()) == nil)
        #expect(VaultKey(bytes: bytes + [0]) == nil)
    }

    @Test func aValueMovedToAnotherRowDoesNotOpen() throws {
        let ring = VaultKeyRing(current: .generate())
        let sealed = try ring.seal("hunter2", context: account)
        for other in [
            VaultContext(table: "gradebook_accounts", rowID: 13, owner: 5),
            VaultContext(table: "gradebook_accounts", rowID: 12, owner: 6),
            VaultContext(table: "other_accounts", rowID: 12, owner: 5),
            VaultContext(table: "gradebook_accounts/12", rowID: 5, owner: 0),
        ] {
            #expect(throws: VaultError.cannotOpen) { try ring.open(sealed, context: other) }
        }
        #expect(account.canonical == "gradebook_accounts/12/5")
    }

    @Test func tamperedValuesDoNotOpen() throws {
        let ring = VaultKeyRing(current: .generate())
        let sealed = try ring.seal("hunter2", context: account)
        let prefix = "v1.\(ring.current.id)."
        let body = Array(sealed.dropFirst(prefix.count))
        // Every character of the box changed to another base64url character: never opens.
        for index in body.indices {
            var changed = body
            changed[index] = changed[index] == "A" ? "B" : "A"
            #expect(throws: VaultError.self) { try ring.open(prefix + String(changed), context: account) }
            do {
                _ = try ring.open(prefix + String(changed), context: account)
            } catch let error as VaultError {
                #expect(error == .cannotOpen || error == .malformed)
            }
        }
        for malformed in [
            "", "v1", "hunter2", sealed + ".", "v2" + sealed.dropFirst(2), String(sealed.dropLast(30)),
            prefix + "!!!!", prefix.uppercased() + String(body), sealed + "=", "v1..\(String(body))",
        ] {
            #expect(throws: VaultError.malformed) { try ring.open(malformed, context: account) }
        }
    }

    @Test func aValueUnderAnUnknownKeyFailsNamingTheKey() throws {
        let old = VaultKey.generate()
        let sealed = try VaultKeyRing(current: old).seal("hunter2", context: account)
        let ring = VaultKeyRing(current: .generate())
        #expect(throws: VaultError.unknownKey(id: old.id)) { try ring.open(sealed, context: account) }
        // Swapping in a key id the ring does know does not help either.
        let swapped = sealed.replacingOccurrences(of: old.id, with: ring.current.id)
        #expect(throws: VaultError.cannotOpen) { try ring.open(swapped, context: account) }
    }

    @Test func previousKeysOpenAndTheCurrentKeySeals() throws {
        let old = VaultKey.generate()
        let new = VaultKey.generate()
        let oldValue = try VaultKeyRing(current: old).seal("old secret", context: account)
        let ring = VaultKeyRing(current: new, previous: [old, new, old])
        #expect(ring.previous == [old])
        #expect(try ring.open(oldValue, context: account) == "old secret")
        #expect(try SealedSecret(parsing: ring.seal("x", context: account)).keyID == new.id)
    }

    @Test func descriptionsShowNeitherKeysNorPlaintext() throws {
        let (bytes, encodings) = VaultTestKeys.material()
        let key = try #require(VaultKey(bytes: bytes))
        let ring = VaultKeyRing(current: key, previous: [.generate()])
        let plaintext = "correct-horse-battery-staple"
        let sealed = try ring.seal(plaintext, context: account)

        var dumped = ""
        dump(key, to: &dumped)
        dump(ring, to: &dumped)
        dump(VaultKeySource.environment(ring), to: &dumped)
        var texts = [
            key.description, key.debugDescription, String(describing: key), String(reflecting: key), "\(key)",
            ring.description, String(reflecting: ring), "\(VaultKeySource.environment(ring))",
            String(reflecting: VaultKeySource.environment(ring)), dumped,
            try SealedSecret(parsing: sealed).description, String(reflecting: try SealedSecret(parsing: sealed)),
        ]
        #expect(key.description == "VaultKey(id: \(key.id))")

        var errors: [any Error] = []
        for attempt in [
            { try ring.open(sealed, context: VaultContext(table: "gradebook_accounts", rowID: 1, owner: 1)) },
            { try VaultKeyRing(current: .generate()).open(sealed, context: self.account) },
            { try ring.open(plaintext, context: self.account) },
            { try ring.open("v1.\(key.id).\(plaintext)", context: self.account) },
        ] as [() throws -> String] {
            do { _ = try attempt() } catch { errors.append(error) }
        }
        #expect(errors.count == 4)
        for error in errors {
            texts += [String(describing: error), String(reflecting: error), error.localizedDescription]
        }
        for text in texts {
            #expect(!text.contains(plaintext), "\(text)")
            for encoding in encodings { #expect(!text.contains(encoding), "\(text)") }
        }
    }
}

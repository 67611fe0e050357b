#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Gradebook
import Testing

/// Where keys come from: the environment, the key file (created 0600, refused when others may
/// read it), and a provider that follows a key file changed by another process.
@Suite struct VaultKeyStoreTests {
    let account = VaultContext(table: "gradebook_accounts", rowID: 1, owner: 7)

    /// The file's permission bits. Read through FileManager: which C module owns `struct stat`
    /// depends on the order a clean build meets the headers in.
    static func mode(_ path: String) -> UInt32 {
        let permissions = try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber
        #expect(permissions != nil, "\(path) has no permissions to read")
        return (permissions?.uint32Value ?? 0) & 0o7777
    }

    @Test func theKeyFileIsCreatedOnFirstStartOwnerOnly() throws {
        let directory = try VaultTemporaryDirectory()
        defer { directory.remove() }
        let database = directory.file("gateway.sqlite")
        let provider = try VaultKeyProvider(environment: [:], databasePath: database)
        let path = database + ".vault-keys"
        #expect(provider.source == .file(VaultKeyFile(path: path)))
        #expect(Self.mode(path) == 0o600)

        let text = try String(contentsOfFile: path, encoding: .utf8)
        let fields = text.split(separator: " ")
        #expect(text.hasSuffix("\n") && text.split(separator: "\n").count == 1)
        #expect(fields.count == 2 && fields[0] == provider.ring.current.id)
        #expect(Data(base64Encoded: String(fields[1].dropLast()))?.count == 32)

        // The next start reads the same key; nothing but the key file is left in the directory.
        let again = try VaultKeyProvider(environment: [:], databasePath: database)
        #expect(again.ring == provider.ring)
        let sealed = try provider.seal("hunter2", context: account)
        #expect(try again.open(sealed, context: account) == "hunter2")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["gateway.sqlite.vault-keys"])
    }

    @Test func serversStartingTogetherAgreeOnOneKey() async throws {
        let directory = try VaultTemporaryDirectory()
        defer { directory.remove() }
        let file = VaultKeyFile(path: directory.file("keys"))
        let ids = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 { group.addTask { try file.loadOrCreate().current.id } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(ids.count == 1)
        #expect(try file.read().keys.map(\.id) == Array(ids))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["keys"])
    }

    @Test func aKeyFileOthersCanReadIsRefused() throws {
        let directory = try VaultTemporaryDirectory()
        defer { directory.remove() }
        let file = VaultKeyFile(path: directory.file("keys"))
        let (bytes, encodings) = VaultTestKeys.material()
        try file.write(VaultKeyRing(current: #require(VaultKey(bytes: bytes))))
        #expect(Self.mode(file.path) == 0o600)
        for mode: mode_t in [0o644, 0o640, 0o604, 0o620] {
            #expect(chmod(file.path, mode) == 0)
            do {
                _ = try VaultKeyProvider(source: .file(file))
                Issue.record("a \(String(mode, radix: 8)) key file was accepted")
            } catch let error as VaultKeyStoreError {
                #expect(error == .insecureKeyFile(path: file.path, mode: UInt32(mode)))
                #expect(error.description.contains("chmod 600 \(file.path)"))
                for encoding in encodings { #expect(!error.description.contains(encoding)) }
            }
        }
        #expect(chmod(file.path, 0o600) == 0)
        #expect(try VaultKeyProvider(source: .file(file)).ring.current == VaultKey(bytes: bytes))
        #expect(chmod(file.path, 0o400) == 0)
        #expect(try file.read().current == VaultKey(bytes: bytes))
    }

    @Test func aDamagedKeyFileIsRefusedWithoutQuotingIt() throws {
        let directory = try VaultTemporaryDirectory()
        defer { directory.remove() }
        let file = VaultKeyFile(path: directory.file("keys"))
        let (bytes, encodings) = VaultTestKeys.material()
        let key = try #require(VaultKey(bytes: bytes))
        let other = VaultKey.generate()
        let good = "\(key.id) \(encodings[0])\n"
        for (text, line) in [
            ("", 0), ("\n", 1), ("\(other.id) \(encodings[0])\n", 1), (good + "garbage\n", 2),
            ("\(key.id) \(encodings[0].dropLast(4))\n", 1), ("\(key.id)  \(encodings[0])\n", 1),
        ] {
            try? FileManager.default.removeItem(atPath: file.path)
            #expect(FileManager.default.createFile(atPath: file.path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]))
            do {
                _ = try file.read()
                Issue.record("accepted \(line)")
            } catch let error as VaultKeyStoreError {
                guard case .malformedKeyFile(file.path, line, _) = error else {
                    Issue.record("\(error)")
                    continue
                }
                for encoding in encodings { #expect(!error.description.contains(encoding)) }
            }
        }
        // Url-safe or unpadded keys, CRLF line ends and previous keys are read.
        let (previousBytes, previousEncodings) = VaultTestKeys.material()
        let previous = try #require(VaultKey(bytes: previousBytes))
        try? FileManager.default.removeItem(atPath: file.path)
        let text = "\(key.id) \(encodings[2])\r\n\(previous.id) \(previousEncodings[1])\n"
        #expect(FileManager.default.createFile(atPath: file.path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]))
        #expect(try file.read() == VaultKeyRing(current: key, previous: [previous]))
    }

    @Test func environmentKeysAreParsed() throws {
        let (bytes, encodings) = VaultTestKeys.material()
        let key = try #require(VaultKey(bytes: bytes))
        let (oldBytes, oldEncodings) = VaultTestKeys.material()
        let old = try #require(VaultKey(bytes: oldBytes))
        for text in [encodings[0], encodings[1], encodings[2], " \(encodings[0])\n"] {
            let ring = try #require(try VaultKeySource.environmentRing(["GATEWAY_VAULT_KEY": text]))
            #expect(ring.current == key && ring.previous.isEmpty)
        }
        let ring = try #require(try VaultKeySource.environmentRing([
            "GATEWAY_VAULT_KEY": encodings[0], "GATEWAY_VAULT_PREVIOUS_KEYS": "\(oldEncodings[2]), \(encodings[0]),",
        ]))
        #expect(ring.current == key && ring.previous == [old])
        #expect(try VaultKeySource.environmentRing([:]) == nil)
        #expect(try VaultKeySource.resolve(environment: ["GATEWAY_VAULT_KEY": encodings[0]], databasePath: "/db") == .environment(VaultKeyRing(current: key)))
        #expect(try VaultKeySource.resolve(environment: [:], databasePath: "/srv/gateway.sqlite") == .file(VaultKeyFile(path: "/srv/gateway.sqlite.vault-keys")))
        #expect(try VaultKeySource.resolve(environment: [:], databasePath: "/db", keyFilePath: "/etc/keys") == .file(VaultKeyFile(path: "/etc/keys")))

        let short = Data(bytes.prefix(16)).base64EncodedString()
        let cases: [([String: String], VaultKeyStoreError)] = [
            (["GATEWAY_VAULT_KEY": ""], .invalidEnvironmentKey(variable: "GATEWAY_VAULT_KEY", entry: nil, reason: "it is empty")),
            (["GATEWAY_VAULT_KEY": "not base64!" + encodings[0]], .invalidEnvironmentKey(variable: "GATEWAY_VAULT_KEY", entry: nil, reason: "it is not base64")),
            (["GATEWAY_VAULT_KEY": short], .invalidEnvironmentKey(variable: "GATEWAY_VAULT_KEY", entry: nil, reason: "it decodes to 16 bytes, not 32")),
            (["GATEWAY_VAULT_KEY": encodings[0], "GATEWAY_VAULT_PREVIOUS_KEYS": "\(oldEncodings[0]),\(encodings[3])"],
             .invalidEnvironmentKey(variable: "GATEWAY_VAULT_PREVIOUS_KEYS", entry: 2, reason: "it decodes to 48 bytes, not 32")),
            (["GATEWAY_VAULT_PREVIOUS_KEYS": oldEncodings[0]], .previousKeysWithoutCurrentKey),
        ]
        for (environment, expected) in cases {
            #expect(throws: expected) { try VaultKeySource.environmentRing(environment) }
            #expect(throws: expected) { try VaultKeyProvider(environment: environment, databasePath: "/nonexistent/db") }
            for encoding in encodings + oldEncodings + [short] { #expect(!expected.description.contains(encoding)) }
        }
    }

    @Test func environmentKeysNeverTouchTheDisk() throws {
        let directory = try VaultTemporaryDirectory()
        defer { directory.remove() }
        let key = VaultKey.generate()
        let provider = try VaultKeyProvider(source: .environment(VaultKeyRing(current: key)))
        #expect(try provider.current == key)
        let sealed = try VaultKeyRing(current: .generate()).seal("x", context: account)
        #expect(throws: VaultError.self) { try provider.open(sealed, context: account) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func aRunningProviderFollowsTheKeyFile() throws {
        let directory = try VaultTemporaryDirectory()
        defer { directory.remove() }
        let file = VaultKeyFile(path: directory.file("keys"))
        let server = try VaultKeyProvider(source: .file(file))
        let first = server.ring.current
        let before = try server.seal("sealed before", context: account)

        // Another process adds a new current key.
        let second = VaultKey.generate()
        try file.write(VaultKeyRing(current: second, previous: [first]))
        #expect(Self.mode(file.path) == 0o600)
        let sealedElsewhere = try VaultKeyRing(current: second).seal("sealed elsewhere", context: account)
        #expect(server.ring.current == first)
        // Opening an unknown key id re-reads the file.
        #expect(try server.open(sealedElsewhere, context: account) == "sealed elsewhere")
        #expect(server.ring.current == second)
        #expect(try server.open(before, context: account) == "sealed before")

        // Sealing notices a changed file without any unknown id.
        let third = VaultKey.generate()
        try file.write(VaultKeyRing(current: third, previous: [second, first]))
        #expect(try server.current == third)
        #expect(try SealedSecret(parsing: server.seal("y", context: account)).keyID == third.id)

        // A key nobody has is still unknown after the re-read.
        let stranger = try VaultKeyRing(current: .generate()).seal("z", context: account)
        #expect(throws: VaultError.self) { try server.open(stranger, context: account) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["keys"])
    }
}

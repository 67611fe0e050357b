import Foundation
import Testing
import TestSupport

/// `gateway import-catalog` and the registration flags of `serve`.
@Suite("Registration command line", .serialized)
struct RegistrationCommandLineTests {
    static func temporary() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("reg-cli-\(UUID().uuidString)")
    }

    @Test func importCatalogReportsAndIsIdempotent() async throws {
        let directory = Self.temporary()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("catalog.json")
        try Data(contentsOf: CatalogFixtures.url("native-catalog-sample.json")).write(to: file)
        let database = directory.appendingPathComponent("db.sqlite").path

        let first = try await GatewayBinary.run(["import-catalog", "--database", database, "--format", "native", file.path])
        #expect(first.status == 0, "stderr: \(first.stderr)")
        #expect(first.stdout.contains("classes: 3 created, 0 updated, 0 unchanged"))
        #expect(first.stdout.contains("rejected: 8 row(s)"))
        #expect(first.stdout.contains("classes[6]: unknown course LING 102"))

        let again = try await GatewayBinary.run(["import-catalog", "--database", database, "--format", "native", "--json", file.path])
        #expect(again.status == 0)
        let report = try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any]
        #expect((report?["classes"] as? [String: Int])?["unchanged"] == 3)

        let strict = try await GatewayBinary.run(["import-catalog", "--database", database, "--format", "native", "--strict", file.path])
        #expect(strict.status == 1)
        #expect(strict.stderr.hasPrefix("gateway: strict import aborted"))
        #expect(strict.stderr.split(separator: "\n").count == 1)

        let missing = try await GatewayBinary.run(["import-catalog", "--database", database, "--format", "umdio", directory.appendingPathComponent("nope.json").path])
        #expect(missing.status != 0)
        #expect(missing.stderr.hasPrefix("gateway: "))
    }

    @Test func serveDocumentsAndValidatesTheRegistrationFlags() async throws {
        let help = try await GatewayBinary.run(["serve", "--help"])
        for flag in ["--class-limit", "--waitlist-policy", "--offer-window-minutes", "--red-ids"] {
            #expect(help.stdout.contains(flag), "serve --help mentions \(flag)")
        }
        let top = try await GatewayBinary.run(["--help"])
        #expect(top.stdout.contains("import-catalog"))
        #expect(!top.stdout.contains("registration-bench"), "the benchmark command is hidden")
        let bad = try await GatewayBinary.run(["serve", "--waitlist-policy", "lottery", "--database", Self.temporary().appendingPathComponent("db.sqlite").path])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("--waitlist-policy"))
    }
}

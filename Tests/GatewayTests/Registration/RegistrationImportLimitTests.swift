import TestSupport
import GatewayHTTP
import HTTPTypes
import Catalog
import Contracts
import Foundation
import GRDB
import GatewayApp
import GatewayCore
import HummingbirdTesting
import Registration
import Testing

/// Catalog uploads through the application's front door: the real umd.io file passes the
/// ordinary body limit on Registration's import path, and size limits answer 413; and errors under
/// the bare `/registration` path answer the SDSU protocol's way, others as problems. (The
/// catalog management itself is tested on the Registration module alone, in RegistrationTests.)
@Suite("Catalog uploads through the front door")
struct RegistrationImportLimitTests {
    @Test func theRealUMDIOFileUploadsOverTheDefaultBodyLimitAndReimportsAsUnchanged() async throws {
        let gateway = try await TestGateway.registration()
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("root", role: .admin)
        let student = try await gateway.account("sam", role: .student)
        let file = String(decoding: try CatalogFixtures.umdio(), as: UTF8.self)
        #expect(file.utf8.count > gateway.app.configuration.maxBodyBytes, "the file is larger than ordinary bodies may be")
        try await gateway.withRouter { client in
            #expect(try await client.json(.post, "/v1/admin/registration/imports?format=umdio", body: file, token: student).status == .forbidden)
            let anonymous = try await client.json(.post, "/v1/admin/registration/imports?format=umdio", body: file)
            #expect(anonymous.status == .contentTooLarge, "without credentials the ordinary 1 MiB limit applies")
            let first = try await client.json(.post, "/v1/admin/registration/imports?format=umdio", body: file, token: admin)
            #expect(first.status == .ok)
            let classes = try #require(first.object["classes"] as? [String: Int])
            #expect(classes["created"] == 2019 && classes["unchanged"] == 33, "30 courses are listed twice in the file")
            let subjects = try #require(first.object["subjects"] as? [String: Int])
            #expect(subjects.values.reduce(0, +) == 131, "one of them (ASTR) is already in the fixtures: \(subjects)")

            let again = try await client.json(.post, "/v1/admin/registration/imports?format=umdio", body: file, token: admin)
            #expect((again.object["classes"] as? [String: Int]) == ["created": 0, "updated": 0, "unchanged": 2052])

            let online = try await client.json(.get, "/v1/registration/classes?subject=AASP&limit=100")
            #expect((online.object["items"] as? [Any])?.isEmpty == false)
        }
    }

    @Test func uploadsBeyondTheImportLimitAndOrdinaryBodiesBeyondOneMiBAre413() async throws {
        let gateway = try await TestGateway.registration { $0.maxImportBytes = 1 << 20 }
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("root", role: .admin)
        let file = String(decoding: try CatalogFixtures.umdio(), as: UTF8.self)
        try await gateway.withRouter { client in
            let tooLarge = try await client.json(.post, "/v1/admin/registration/imports?format=umdio", body: file, token: admin)
            #expect(tooLarge.status == .contentTooLarge)
            #expect(tooLarge.object["type"] as? String == "/problems/payload-too-large")
            let ordinary = try await client.json(.put, "/v1/admin/registration/red-id-roster", body: file, token: admin)
            #expect(ordinary.status == .contentTooLarge)
            let subjects = try await client.json(.get, "/v1/registration/subjects")
            #expect(!subjects.body.contains("AASP"), "nothing of the refused upload was applied")
        }
    }

    @Test func errorsUnderTheBareRegistrationPathAnswerTheProtocolsWay() async throws {
        let gateway = try await TestGateway.registration()
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            let bare = try await client.json(.get, "/registration")
            #expect(bare.status == .notFound)
            #expect(bare.contentType?.hasPrefix("text/html") == true)
            let v1 = try await client.json(.get, "/v1/nothing-here")
            #expect(v1.contentType == "application/problem+json")
        }
    }
}

import Contracts
import Foundation
import GatewayApp
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import Jobs
import Push
import Catalog
import Registration
import Testing
import TestSupport

/// A seat alert (Registration's open event) mailed by Push over SMTP to a real server on
/// 127.0.0.1, through the whole application: the mail names the section, and its one-click link
/// stops that alert in Registration. (Email devices alone are tested in PushTests' EmailDeviceTests.)
@Suite("Seat alert mails", .serialized)
struct SeatAlertMailJourneyTests {
    static func gateway(_ server: SMTPStandIn) throws -> TestGateway {
        try TestGateway {
            $0.jobs.workersEnabled = false
            $0.smtp = SMTPSettings(
                url: server.url, from: "gateway@campus.example.edu", username: "gateway", password: "smtp-secret-1", caFile: server.caFile
            )
            $0.publicURL = URL(string: "https://gateway.example.edu/")
        }
    }

    static func deliverAll(_ gateway: TestGateway) async throws {
        _ = try await gateway.app.runQueuedJobs(queue: PushJobs.queue)
    }

    static func code(in message: SMTPStandIn.Message) throws -> String { try message.confirmationCode() }

    static func token(in link: String) throws -> String { try PushTestValues.linkToken(in: link) }

    /// A seat alert mailed on a real open event names the course and section, and its one-click
    /// link stops that alert (not every seat alert, and not the address).
    @Test func aSeatAlertMailNamesTheSectionAndItsLinkStopsTheAlert() async throws {
        let server = try await SMTPStandIn.started(username: "gateway", password: "smtp-secret-1")
        defer { server.stop() }
        let gateway = try Self.gateway(server)
        defer { gateway.cleanUp() }
        try await gateway.app.registrationService.admin.seedDemoCatalogIfEmpty(size: .fixtures)
        let ada = try await gateway.account("ada", role: .student)
        try await gateway.withRouter { client async throws in
            let created = try await client.json(.post, "/v1/me/devices", body: #"{"channel": "email", "email": "ada@example.edu"}"#, token: ada)
            let id = try #require((created.object["device"] as? [String: Any])?["id"] as? Int)
            try await Self.deliverAll(gateway)
            let code = try Self.code(in: try #require(server.messages().first))
            #expect(try await client.json(.post, "/v1/me/devices/\(id)/confirm", body: #"{"code": "\#(code)"}"#, token: ada).status == .ok)
            let alert = try await client.json(.post, "/v1/me/seat-alerts", body: #"{"classId": 7036, "rearm": true}"#, token: ada)
            #expect(alert.status == .created)
            let other = try await client.json(.post, "/v1/me/seat-alerts", body: #"{"classId": 7035, "rearm": true}"#, token: ada)
            // An admin adds a seat to the full class 7036: an open event, mailed.
            let listing = try #require(try await gateway.app.registrationService.catalog.classListing(id: 7036))
            _ = try await gateway.app.registrationService.admin.setSeats(classID: 7036, seats: listing.seats.seats + 1)
            try await Self.deliverAll(gateway)
            let mail = try #require(server.messages().last)
            #expect(mail.header("Subject") == "CS 540-01 (class 7036): 1 seat open")
            let unsubscribe = try Self.token(in: try #require(mail.header("List-Unsubscribe")))
            let reply = try await client.oneClickUnsubscribe(token: unsubscribe)
            #expect(reply == .ok)
            let alerts = try #require(try await client.json(.get, "/v1/me/seat-alerts", token: ada).object["items"] as? [[String: Any]])
            #expect(alerts.first { $0["id"] as? Int == alert.object["id"] as? Int }?["armed"] as? Bool == false, "that alert is stopped")
            #expect(alerts.first { $0["id"] as? Int == other.object["id"] as? Int }?["armed"] as? Bool == true, "the other goes on")
            let device = try await client.json(.get, "/v1/me/devices/\(id)", token: ada)
            #expect((device.object["mutedCategories"] as? [String] ?? []).isEmpty, "the address still hears seat alerts")
        }
    }
}

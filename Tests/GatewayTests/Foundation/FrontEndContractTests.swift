import Auth
import Storage
import Contracts
import Foundation
import GatewayApp
import GatewayCore
import GatewayHTTP
import HTTPTypes
import HummingbirdTesting
import Push
import TestSupport
import Testing

/// What a front end relies on beyond the bodies: `Link: <...>; rel="next"` on every paged list,
/// and 422 field errors a form can show (`errors: [{pointer, detail}]` beside `invalidFields`).
@Suite("Front-end contract: paging links and field errors")
struct FrontEndContractTests {
    static func next(_ reply: HTTPReply) -> String? {
        guard let link = reply.headers[HTTPField.Name("Link")!], let start = link.firstIndex(of: "<"), let end = link.firstIndex(of: ">"),
              link.contains(#"rel="next""#) else { return nil }
        return String(link[link.index(after: start)..<end])
    }

    @Test func everyPagedListLinksItsNextPage() async throws {
        let gateway = try await TestGateway.registration(.sqlite)
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("links-admin", role: .admin)
        for n in 0..<3 { _ = try await gateway.account("links-user-\(n)", role: .student) }
        try await gateway.withRouter { client in
            // Classes: follow the links to the end; every class once, in order, the filter kept.
            var seen: [Int] = []
            var target: String? = "/v1/registration/classes?subject=CS&limit=20"
            var pages = 0
            while let uri = target {
                let page = try await client.json(.get, uri)
                #expect(page.status == .ok)
                seen += (page.object["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
                target = Self.next(page)
                #expect((page.object["nextCursor"] as? String != nil) == (target != nil), "Link and nextCursor agree")
                if let target { #expect(target.hasPrefix("/v1/registration/classes?") && target.contains("subject=CS") && target.contains("limit=20")) }
                pages += 1
            }
            #expect(pages > 2 && seen == seen.sorted() && Set(seen).count == seen.count && seen.count == 65)

            let accounts = try await client.json(.get, "/v1/admin/accounts?limit=2", token: admin)
            let more = try #require(Self.next(accounts))
            #expect(more.hasPrefix("/v1/admin/accounts?limit=2&cursor="))
            #expect(try await client.json(.get, more, token: admin).status == .ok)

            for n in 0..<3 { _ = try await client.json(.post, "/v1/admin/jobs", body: #"{"kind":"diagnostics.noop","uniqueKey":"links-\#(n)"}"#, token: admin) }
            let jobs = try await client.json(.get, "/v1/admin/jobs?limit=2", token: admin)
            #expect(Self.next(jobs)?.hasPrefix("/v1/admin/jobs?limit=2&cursor=") == true)
        }
    }

    /// A device's notification history and the admin outbox, paged newest first to the end:
    /// every notification once, `Link` and `nextCursor` agreeing; a foreign cursor is a 400.
    @Test func notificationHistoriesArePaged() async throws {
        let gateway = try await TestGateway.make(.sqlite)
        defer { gateway.cleanUp() }
        let ada = try await gateway.account("paged-ada", role: .student)
        let admin = try await gateway.account("paged-admin", role: .admin)
        let accountID = try await gateway.app.accounts.transactions.read { db in
            try gateway.app.accounts.store.find(username: "paged-ada", in: db)!.id!
        }
        try await gateway.withRouter { client in
            let made = try await client.json(.post, "/v1/me/devices", body: #"{"channel": "log"}"#, token: ada)
            let deviceID = try #require((made.object["device"] as? [String: Any])?["id"] as? Int)
            for n in 0..<7 {
                let note = OutgoingNotification(id: "paged-\(n)", category: "waitlist.offer", title: "Grade \(n)", body: "Posted", urgent: true)
                #expect(try await gateway.app.outbox.notify(accountID: accountID, uniqueKey: "paged:\(n)", note) == 1)
            }
            for (first, token) in [("/v1/me/devices/\(deviceID)/notifications?limit=3", ada), ("/v1/admin/push/notifications?limit=3", admin)] {
                var titles: [String] = []
                var target: String? = first
                var pages = 0
                while let uri = target {
                    let page = try await client.json(.get, uri, token: token)
                    #expect(page.status == .ok, "\(uri)")
                    let items = page.object["items"] as? [[String: Any]] ?? []
                    #expect(items.count <= 3)
                    titles += items.compactMap { $0["title"] as? String }
                    target = Self.next(page)
                    #expect((page.object["nextCursor"] as? String != nil) == (target != nil), "Link and nextCursor agree")
                    if let target { #expect(target.contains("limit=3&cursor=")) }
                    pages += 1
                }
                #expect(pages == 3, "\(first)")
                #expect(titles == (0..<7).reversed().map { "Grade \($0)" }, "newest first, each once: \(titles)")
            }
            let foreign = PageCursor(after: ["not-a-number"]).token
            let refused = try await client.json(.get, "/v1/me/devices/\(deviceID)/notifications?cursor=\(foreign)", token: ada)
            #expect(refused.status == .badRequest)
            #expect(try await client.json(.get, "/v1/me/devices/\(deviceID)/notifications?limit=201", token: ada).status == .badRequest)
        }
    }

    @Test func fieldErrorsNameTheirPointer() async throws {
        let gateway = try await TestGateway.registration(.sqlite)
        defer { gateway.cleanUp() }
        let ada = try await gateway.account("pointer-ada", role: .student)
        let admin = try await gateway.account("pointer-admin", role: .admin)
        try await gateway.withRouter { client in
            let quiet = try await client.json(
                .put, "/v1/me/push-preferences", body: #"{"quietHours": {"start": "25:00", "end": "07:00", "timeZone": "America/Los_Angeles"}}"#, token: ada
            )
            #expect(quiet.status == .unprocessableContent)
            #expect(quiet.object["invalidFields"] as? [String] == ["quietHours.start"])
            let errors = try #require(quiet.object["errors"] as? [[String: String]])
            #expect(errors.count == 1 && errors[0]["pointer"] == "/quietHours/start" && errors[0]["detail"]?.isEmpty == false)

            let term = try await client.json(
                .put, "/v1/admin/terms/2030-fall",
                body: #"{"name":"Fall","firstDay":"2030-08-26","lastDay":"2030-08-01","timeZone":"America/Los_Angeles","holidays":[],"transferDays":[]}"#,
                token: admin
            )
            #expect(term.status == .unprocessableContent)
            #expect((term.object["errors"] as? [[String: String]])?.first?["pointer"] == "/lastDay")
        }
        #expect(Problem.jsonPointer("holidays[1].to") == "/holidays/1/to")
        #expect(Problem.jsonPointer("a/b~c") == "/a~1b~0c")
        #expect(Problem.jsonPointer("/updates/3/seats") == "/updates/3/seats")
    }
}

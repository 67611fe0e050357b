import Auth
import AuthTestSupport
import Contracts
import Foundation
import GRDB
import GatewayCore
import Storage
import Jobs
import HTTPTypes
import Push
import TestSupport
import Testing
import SQLiteStorage

/// `/v1/me/push-preferences`: categories, quiet hours in the student's zone and the hourly
/// budget; bad fields answer 422 naming them and change nothing.
@Suite("Push preferences")
struct PushPreferenceTests {
    @Test func studentsReadAndReplaceTheirOwnPreferences() async throws {
        let gateway = try await PushGateway.make()
        defer { gateway.cleanUp() }
        let ada = try await gateway.account("ada", role: .student)
        let bob = try await gateway.account("bob", role: .student)
        try await gateway.withRouter { client async throws in
            #expect(try await client.json(.get, "/v1/me/push-preferences").status == .unauthorized)
            let defaults = try await client.json(.get, "/v1/me/push-preferences", token: ada)
            #expect(defaults.status == .ok)
            #expect(defaults.object["categories"] as? [String: Bool] == ["grade.new": true, "grade.changed": true, "seat.open": true, "seat.closed": true, "waitlist.offer": true])
            #expect(defaults.object["quietHours"] is NSNull)
            #expect(defaults.object["maxPerHour"] as? Int == 30)

            let bad: [(String, String)] = [
                (#"{"categories": {"grade.bogus": false}}"#, "categories.grade.bogus"),
                (#"{"categories": {"class.cancelled": false}}"#, "categories.class.cancelled"),
                (#"{"quietHours": {"start": "25:00", "end": "07:00", "timeZone": "America/Los_Angeles"}}"#, "quietHours.start"),
                (#"{"quietHours": {"start": "22:00", "timeZone": "America/Los_Angeles"}}"#, "quietHours.end"),
                (#"{"quietHours": {"start": "22:00", "end": "22:00", "timeZone": "America/Los_Angeles"}}"#, "quietHours.end"),
                (#"{"quietHours": {"start": "22:00", "end": "07:00", "timeZone": "Mars/Olympus_Mons"}}"#, "quietHours.timeZone"),
                (#"{"maxPerHour": 0}"#, "maxPerHour"),
                (#"{"maxPerHour": 100000}"#, "maxPerHour"),
            ]
            for (body, field) in bad {
                let reply = try await client.json(.put, "/v1/me/push-preferences", body: body, token: ada)
                #expect(reply.status == .unprocessableContent, "\(body)")
                #expect(reply.object["invalidFields"] as? [String] == [field], "\(body)")
            }
            #expect(try await client.json(.get, "/v1/me/push-preferences", token: ada).body == defaults.body, "refusals change nothing")

            let chosen = #"{"categories": {"grade.changed": false}, "quietHours": {"start": "22:00", "end": "07:00", "timeZone": "America/Los_Angeles"}, "maxPerHour": 5}"#
            let saved = try await client.json(.put, "/v1/me/push-preferences", body: chosen, token: ada)
            #expect(saved.status == .ok)
            #expect((saved.object["categories"] as? [String: Bool])?["grade.changed"] == false)
            #expect(saved.object["quietHours"] as? [String: String] == ["start": "22:00", "end": "07:00", "timeZone": "America/Los_Angeles"])
            #expect(try await client.json(.get, "/v1/me/push-preferences", token: ada).body == saved.body)
            #expect(try await client.json(.get, "/v1/me/push-preferences", token: bob).body == defaults.body, "one student's choice is theirs alone")
        }
    }

    @Test func quietHoursDeferAndMutedCategoriesQueueNothing() async throws {
        let gateway = try await PushGateway.make()
        defer { gateway.cleanUp() }
        let ada = try await gateway.account("ada", role: .student)
        let accountID = try await gateway.auth.transactions.read { db in try gateway.auth.store.find(username: "ada", in: db)!.id! }
        try await gateway.withRouter { client async throws in
            #expect(try await client.json(.post, "/v1/me/devices", body: #"{"channel": "log"}"#, token: ada).status == .created)
            let chosen = #"{"categories": {"grade.changed": false}, "quietHours": {"start": "22:00", "end": "07:00", "timeZone": "America/Los_Angeles"}}"#
            #expect(try await client.json(.put, "/v1/me/push-preferences", body: chosen, token: ada).status == .ok)
        }
        // 23:30 in Los Angeles.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "America/Los_Angeles")!
        let night = calendar.nextDate(after: gateway.clock.now(), matching: DateComponents(hour: 23, minute: 30), matchingPolicy: .nextTime)!
        gateway.clock.set(night)
        let morning = calendar.nextDate(after: night, matching: DateComponents(hour: 7, minute: 0), matchingPolicy: .nextTime)!

        let push = gateway.push
        #expect(try await push.notify(accountID: accountID, uniqueKey: "g1", OutgoingNotification(id: "g1", category: "grade.new", title: "New grade", body: "Quiz 1")) == 1)
        #expect(try await push.notify(accountID: accountID, uniqueKey: "g2", OutgoingNotification(id: "g2", category: "grade.changed", title: "Changed", body: "Quiz 1")) == 0)
        #expect(try await push.notify(accountID: accountID, uniqueKey: "s1", OutgoingNotification(id: "s1", category: "seat.open", title: "Seat", body: "7030", urgent: true)) == 1)
        // A student testing their device at night hears it at once.
        // (A new token: the clock moved past the first one's lifetime.)
        let tonight = try await gateway.auth.issueToken(username: "ada", password: "correct horse battery", lifetimeMinutes: nil, clientAddress: nil).token
        try await gateway.withRouter { client async throws in
            let devices = try await client.json(.get, "/v1/me/devices", token: tonight)
            let deviceID = try #require((devices.object["items"] as? [[String: Any]])?.first?["id"] as? Int)
            #expect(try await client.json(.post, "/v1/me/devices/\(deviceID)/test", token: tonight).status == .accepted)
        }
        let rows = try await gateway.push.recent(state: .pending, deviceIDs: nil, limit: 10).sorted { $0.id < $1.id }
        #expect(rows.map(\.notification.category) == ["grade.new", "seat.open", "test"])
        #expect(rows.map(\.deliverAt) == [morning, night, night], "the grade waits for 07:00; the seat and the test can't wait")
        let runAts = try await gateway.database.pool.read { db in
            try Int64.fetchAll(db, sql: "SELECT run_at FROM jobs WHERE kind = 'push.deliver' ORDER BY id")
        }
        #expect(runAts == [morning, night, night].map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }, "the delivery jobs wait as long")
    }
}

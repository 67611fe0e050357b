import Contracts
import TestSupport
import Storage
import Foundation
import GRDB
import GatewayCore
import Jobs
import Testing
import SQLiteStorage

@Suite("Schedules: one enqueue per tick, across restarts and processes (manual clock)")
struct ScheduleTests {
    static let utc = TimeZone(identifier: "UTC")!

    func jobs(_ h: JobsHarness, schedule: String) async throws -> [(key: String, id: Int64)] {
        try await h.database.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT unique_key, id FROM jobs WHERE unique_key LIKE ? ORDER BY id", arguments: ["schedule:\(schedule):%"])
                .map { ($0[0], $0[1]) }
        }
    }

    @Test func intervalScheduleEnqueuesOncePerTickAndOnceAfterDowntime() async throws {
        let h = try JobsHarness()
        defer { h.cleanUp() }
        let store = h.service.schedules
        let start = h.clock.now()
        try await store.sync([ScheduleDefinition(name: "poll", kind: "poll", rule: .every(seconds: 60))], now: start, timeZone: Self.utc)
        #expect(try await store.tick(now: start, timeZone: Self.utc).isEmpty)
        h.clock.advance(by: 60)
        #expect(try await store.tick(now: h.clock.now(), timeZone: Self.utc).count == 1)
        #expect(try await store.tick(now: h.clock.now(), timeZone: Self.utc).isEmpty)
        // Down for ten intervals: one job, and the next run counts from now.
        h.clock.advance(by: 600)
        let ticks = try await store.tick(now: h.clock.now(), timeZone: Self.utc)
        #expect(ticks.count == 1)
        let status = try await h.service.schedule(named: "poll")
        #expect(status.nextRunAt == Date(millisecondsSince1970: h.clock.now().addingTimeInterval(60).millisecondsSince1970))
        #expect(status.lastRunAt == Date(millisecondsSince1970: h.clock.now().millisecondsSince1970))
        #expect(status.lastJobId == ticks.first?.jobID)
        #expect(try await jobs(h, schedule: "poll").count == 2)
    }

    @Test func cronScheduleFollowsItsRuleInTheConfiguredZone() async throws {
        let zone = TimeZone(identifier: "America/New_York")!
        let h = try JobsHarness(clock: ManualClock(try Date("2026-03-07T12:00:00Z", strategy: .iso8601))) { $0.timeZone = zone }
        defer { h.cleanUp() }
        let store = h.service.schedules
        try await store.sync(
            [ScheduleDefinition(name: "nightly", kind: "report", rule: try .cron("30 2 * * *"))], now: h.clock.now(), timeZone: zone
        )
        // 02:30 EST on 8 March does not exist (spring forward): it runs at 03:30 EDT = 07:30 UTC.
        #expect(try await h.service.schedule(named: "nightly").nextRunAt == (try Date("2026-03-08T07:30:00Z", strategy: .iso8601)))
        h.clock.set(try Date("2026-03-08T07:30:00Z", strategy: .iso8601))
        #expect(try await store.tick(now: h.clock.now(), timeZone: zone).count == 1)
        #expect(try await h.service.schedule(named: "nightly").nextRunAt == (try Date("2026-03-09T06:30:00Z", strategy: .iso8601)))
    }

    @Test func twoProcessesTickingOneFileEnqueueEachTickOnce() async throws {
        let a = try JobsHarness()
        defer { a.cleanUp() }
        // A second pool of connections on the same file: SQLite sees two independent writers.
        let b = try JobsHarness(directory: a.directory, clock: a.clock)
        let start = a.clock.now()
        let definition = ScheduleDefinition(name: "every-second", kind: "tick", rule: .every(seconds: 1))
        try await a.service.schedules.sync([definition], now: start, timeZone: Self.utc)
        try await b.service.schedules.sync([definition], now: start, timeZone: Self.utc)
        var enqueued = 0
        for _ in 0..<40 {
            a.clock.advance(by: 1)
            let now = a.clock.now()
            async let fromA = a.service.schedules.tick(now: now, timeZone: Self.utc)
            async let fromB = b.service.schedules.tick(now: now, timeZone: Self.utc)
            let (ticksA, ticksB) = try await (fromA, fromB)
            #expect(ticksA.count + ticksB.count == 1)
            enqueued += ticksA.count + ticksB.count
        }
        let jobs = try await jobs(a, schedule: "every-second")
        #expect(enqueued == 40)
        #expect(jobs.count == 40)
        #expect(Set(jobs.map(\.key)).count == 40)
    }

    @Test func operatorsDisableEnableAndRunSchedulesNow() async throws {
        let h = try JobsHarness()
        defer { h.cleanUp() }
        let store = h.service.schedules
        let definition = ScheduleDefinition(name: "digest", kind: "digest", rule: .every(seconds: 3600))
        try await store.sync([definition], now: h.clock.now(), timeZone: Self.utc)
        var status = try await h.service.setSchedule(named: "digest", enabled: false)
        #expect(!status.enabled)
        h.clock.advance(by: 3 * 3600)
        #expect(try await store.tick(now: h.clock.now(), timeZone: Self.utc).isEmpty)
        // A re-declaration at start-up keeps the operator's choice.
        try await store.sync([definition], now: h.clock.now(), timeZone: Self.utc)
        #expect(try await !h.service.schedule(named: "digest").enabled)
        // Re-enabled: the next run counts from now; no stale tick fires.
        status = try await h.service.setSchedule(named: "digest", enabled: true)
        #expect(status.enabled)
        #expect(status.nextRunAt == Date(millisecondsSince1970: h.clock.now().addingTimeInterval(3600).millisecondsSince1970))
        #expect(try await store.tick(now: h.clock.now(), timeZone: Self.utc).isEmpty)
        // Run now: a job at once, the rule untouched.
        let job = try await h.service.runSchedule(named: "digest")
        #expect(job.kind == "digest")
        #expect(job.state == .available)
        #expect(try await h.service.schedule(named: "digest").nextRunAt == status.nextRunAt)
        await #expect(throws: JobsError.scheduleNotFound("nope")) { try await h.service.runSchedule(named: "nope") }
    }

    @Test func aScheduledJobsFailureShowsAsTheScheduleLastError() async throws {
        let h = try JobsHarness()
        defer { h.cleanUp() }
        h.registry.register(kind: "flaky.poll", args: Empty.self) { _, _ in throw JobRetryLater(after: 5, message: "upstream 503") }
        try await h.service.schedules.sync(
            [ScheduleDefinition(name: "poll", kind: "flaky.poll", rule: .every(seconds: 60))], now: h.clock.now(), timeZone: Self.utc
        )
        h.clock.advance(by: 60)
        await h.pool.runMaintenance()  // ticks the schedule
        try await h.pool.drain()
        let status = try await h.service.schedule(named: "poll")
        #expect(status.lastJobState == .retryable)
        #expect(status.lastError == "upstream 503")
    }
}

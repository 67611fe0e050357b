import Foundation
import GatewayCore
import Jobs
@testable import PostgresStores
@testable import SQLiteStores
import Storage
import Testing
import PostgresStorage

/// The promises the schedule store makes (``ScheduleStoring``), with the operators' view of
/// schedules (``JobAdminStoring/scheduleStatuses(timeZone:in:)``), on every backend of
/// ``JobsBackend``: a cron rule's tick enqueues its job exactly once (however many ticks race
/// for it, and once after downtime), with the declared kind, arguments, queue, priority and
/// attempts; a manual run enqueues outside the rule and leaves it alone; an operator's
/// enable/disable outlives a re-declaration, and only a changed rule moves the next run.
@Suite("Schedule store conformance")
struct ScheduleStoreConformance {
    static let utc = TimeZone(identifier: "UTC")!
    struct Args: Codable, Sendable { let n: Int }

    /// A runtime on `backend`; on PostgreSQL the schedules' leadership session is given up after.
    static func withSchedules(
        _ backend: JobsBackend, _ body: (JobsRuntime, JobsStores, any TransactionRunner, ManualClock) async throws -> Void
    ) async throws {
        try await JobStoreConformance.withRuntime(backend) { runtime, stores, transactions, clock in
            do {
                try await body(runtime, stores, transactions, clock)
            } catch {
                await Self.resign(stores)
                throw error
            }
            await Self.resign(stores)
        }
    }

    static func resign(_ stores: JobsStores) async {
        if let postgres = stores.schedules as? PostgresScheduleStore { await postgres.leadership.resign() }
    }

    static func status(_ name: String, _ stores: JobsStores, _ transactions: any TransactionRunner) async throws -> JobsService.ScheduleStatus {
        let admin = stores.admin
        return try await transactions.read { tx throws in
            try #require(try admin.scheduleStatuses(timeZone: "UTC", in: tx).first { $0.name == name })
        }
    }

    static func jobs(kind: String, _ stores: JobsStores, _ transactions: any TransactionRunner) async throws -> [JobRecord] {
        let admin = stores.admin
        return try await transactions.read { tx throws in try admin.list(JobFilter(kind: kind), before: nil, limit: 100, in: tx).reversed() }
    }

    /// `*/15 * * * *` in UTC fires on multiples of 900 s since the epoch: the clock starts at
    /// 1,790,000,000, 100 s before one.
    @Test(arguments: JobsBackend.all)
    func aCronScheduleEnqueuesItsJobOncePerTick(_ backend: JobsBackend) async throws {
        try await Self.withSchedules(backend) { _, stores, transactions, clock in
            let schedules = stores.schedules
            let due = Date(timeIntervalSince1970: 1_790_000_100)
            try await schedules.sync(
                [try ScheduleDefinition(name: "digest", kind: "digest.send", args: Args(n: 7), queue: "mail", rule: .cron("*/15 * * * *"), priority: 2, maxAttempts: 4)],
                now: clock.now(), timeZone: Self.utc
            )
            var status = try await Self.status("digest", stores, transactions)
            #expect(status.nextRunAt == due)
            #expect(status.enabled)
            #expect(status.cron == "*/15 * * * *")
            #expect(status.intervalSeconds == nil)
            #expect((status.kind, status.queue, status.timeZone) == ("digest.send", "mail", "UTC"))
            #expect(status.args == JSONValue(jsonText: #"{"n":7}"#))
            #expect(status.lastRunAt == nil && status.lastJobId == nil && status.lastJobState == nil)

            #expect(try await schedules.tick(now: clock.now(), timeZone: Self.utc) == [])
            #expect(try await schedules.tick(now: due.addingTimeInterval(-1), timeZone: Self.utc) == [], "not due yet")
            clock.set(due)
            let ticks = try await schedules.tick(now: due, timeZone: Self.utc)
            #expect(ticks.map(\.schedule) == ["digest"])
            #expect(ticks.first?.tickMs == due.millisecondsSince1970)
            #expect(try await schedules.tick(now: due, timeZone: Self.utc) == [], "a tick enqueues once")
            var jobs = try await Self.jobs(kind: "digest.send", stores, transactions)
            #expect(jobs.map(\.id) == ticks.map(\.jobID))
            let job = try #require(jobs.first)
            #expect((job.queue, job.priority, job.maxAttempts, job.state) == ("mail", 2, 4, .available))
            #expect(job.args == JSONValue(jsonText: #"{"n":7}"#))
            #expect(job.uniqueKey == "schedule:digest:\(due.millisecondsSince1970)")
            status = try await Self.status("digest", stores, transactions)
            #expect(status.nextRunAt == due.addingTimeInterval(900))
            #expect(status.lastRunAt == due)
            #expect(status.lastJobId == job.id)
            #expect(status.lastJobState == .available)

            // Four ticks race for the next run: one job.
            clock.set(due.addingTimeInterval(900))
            let now = clock.now()
            let raced = try await withThrowingTaskGroup(of: [ScheduleTick].self) { group in
                for _ in 0..<4 { group.addTask { try await schedules.tick(now: now, timeZone: Self.utc) } }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(raced.count == 1, "four ticks, one job")

            // Down for ten runs: one job, and the next run counts from now.
            clock.set(due.addingTimeInterval(900 * 11 + 30))
            let late = try await schedules.tick(now: clock.now(), timeZone: Self.utc)
            #expect(late.map(\.tickMs) == [due.addingTimeInterval(1800).millisecondsSince1970], "the missed run, once")
            status = try await Self.status("digest", stores, transactions)
            #expect(status.nextRunAt == due.addingTimeInterval(900 * 12))
            #expect(status.lastJobId == late.first?.jobID)
            jobs = try await Self.jobs(kind: "digest.send", stores, transactions)
            #expect(jobs.count == 3)
            #expect(Set(jobs.compactMap(\.uniqueKey)).count == 3)
        }
    }

    /// A manual run enqueues the schedule's job at once, with a key of its own (a second run at
    /// the same instant is the same job while it lives), and leaves the rule's next run alone.
    @Test(arguments: JobsBackend.all)
    func aManualRunEnqueuesOutsideTheRule(_ backend: JobsBackend) async throws {
        try await Self.withSchedules(backend) { _, stores, transactions, clock in
            let schedules = stores.schedules
            try await schedules.sync(
                [try ScheduleDefinition(name: "digest", kind: "digest.send", args: Args(n: 1), queue: "mail", rule: .every(seconds: 3600), maxAttempts: 2)],
                now: clock.now(), timeZone: Self.utc
            )
            let next = try await Self.status("digest", stores, transactions).nextRunAt
            #expect(next == clock.now().addingTimeInterval(3600))
            clock.advance(by: 10)
            let now = clock.now()
            let first = try #require(try await schedules.runNow(name: "digest", now: now))
            #expect(!first.duplicate)
            #expect(first.state == .available)
            let again = try #require(try await schedules.runNow(name: "digest", now: now))
            #expect(again.duplicate && again.id == first.id, "the same instant's manual run is the same job")
            clock.advance(by: 1)
            let second = try #require(try await schedules.runNow(name: "digest", now: clock.now()))
            #expect(!second.duplicate && second.id != first.id)
            #expect(try await schedules.runNow(name: "nope", now: clock.now()) == nil)

            let jobs = try await Self.jobs(kind: "digest.send", stores, transactions)
            #expect(jobs.map(\.id) == [first.id, second.id])
            #expect(jobs.first?.uniqueKey == "schedule:digest:manual:\(now.millisecondsSince1970)")
            #expect(jobs.allSatisfy { $0.queue == "mail" && $0.maxAttempts == 2 && $0.args == JSONValue(jsonText: #"{"n":1}"#) })
            let status = try await Self.status("digest", stores, transactions)
            #expect(status.nextRunAt == next, "the rule is untouched")
            #expect(status.lastRunAt == clock.now())
            #expect(status.lastJobId == second.id)
            #expect(try await schedules.tick(now: clock.now(), timeZone: Self.utc) == [])
        }
    }

    /// Disabling stops ticks, and a re-declaration at start-up keeps it; re-enabling counts the
    /// next run from now (no stale tick fires). A re-declaration takes the new kind and
    /// arguments, and moves the next run only when the rule changed.
    @Test(arguments: JobsBackend.all)
    func anOperatorsChoiceOutlivesADeclarationAndOnlyANewRuleMovesTheNextRun(_ backend: JobsBackend) async throws {
        try await Self.withSchedules(backend) { _, stores, transactions, clock in
            let schedules = stores.schedules
            let start = clock.now()
            let poll = ScheduleDefinition(name: "poll", kind: "poll", rule: .every(seconds: 60))
            let digest = ScheduleDefinition(name: "digest", kind: "digest", rule: .every(seconds: 3600))
            try await schedules.sync([poll, digest], now: start, timeZone: Self.utc)
            #expect(try await schedules.setEnabled(false, name: "poll", now: start, timeZone: Self.utc))
            #expect(try await !schedules.setEnabled(true, name: "nope", now: start, timeZone: Self.utc))
            clock.advance(by: 600)
            #expect(try await schedules.tick(now: clock.now(), timeZone: Self.utc) == [], "poll is disabled, digest not due")

            var changed = try ScheduleDefinition(name: "poll", kind: "poll.v2", args: Args(n: 2), queue: "polls", rule: .every(seconds: 60))
            try await schedules.sync([changed], now: clock.now(), timeZone: Self.utc)
            var status = try await Self.status("poll", stores, transactions)
            #expect(!status.enabled, "the operator's choice is kept")
            #expect((status.kind, status.queue) == ("poll.v2", "polls"))
            #expect(status.args == JSONValue(jsonText: #"{"n":2}"#))
            #expect(status.nextRunAt == start.addingTimeInterval(60), "the same rule: the next run stays")

            #expect(try await schedules.setEnabled(true, name: "poll", now: clock.now(), timeZone: Self.utc))
            status = try await Self.status("poll", stores, transactions)
            #expect(status.enabled)
            #expect(status.nextRunAt == clock.now().addingTimeInterval(60), "counted from now")
            #expect(try await schedules.tick(now: clock.now(), timeZone: Self.utc) == [], "no stale tick")

            changed = try ScheduleDefinition(name: "poll", kind: "poll.v2", args: Args(n: 2), queue: "polls", rule: .cron("0 * * * *"))
            try await schedules.sync([changed], now: clock.now(), timeZone: Self.utc)
            status = try await Self.status("poll", stores, transactions)
            // 1,790,000,600 is 14:23:20 UTC; the next hour starts 2,200 s later.
            #expect(status.nextRunAt == clock.now().addingTimeInterval(2200), "a new rule: a new next run")
            #expect(status.cron == "0 * * * *" && status.intervalSeconds == nil)
            clock.advance(by: 2200)
            let ticks = try await schedules.tick(now: clock.now(), timeZone: Self.utc)
            #expect(ticks.map(\.schedule) == ["poll"])
            #expect(try await Self.jobs(kind: "poll.v2", stores, transactions).map(\.queue) == ["polls"])
            let names = try await transactions.read { [admin = stores.admin] tx throws in try admin.scheduleStatuses(timeZone: "UTC", in: tx).map(\.name) }
            #expect(names == ["digest", "poll"], "by name")

            #expect(try await schedules.setEnabled(false, name: "digest", now: clock.now(), timeZone: Self.utc))
            clock.advance(by: 7200)
            #expect(try await schedules.tick(now: clock.now(), timeZone: Self.utc).map(\.schedule) == ["poll"], "a disabled schedule never ticks")
        }
    }

    /// The operators' view shows the last job's state, and its latest error while it is
    /// retrying or after it was cancelled.
    @Test(arguments: JobsBackend.all)
    func theStatusShowsTheLastJobsStateAndError(_ backend: JobsBackend) async throws {
        try await Self.withSchedules(backend) { _, stores, transactions, clock in
            let schedules = stores.schedules
            try await schedules.sync([ScheduleDefinition(name: "poll", kind: "poll", rule: .every(seconds: 60))], now: clock.now(), timeZone: Self.utc)
            clock.advance(by: 60)
            let now = clock.now()
            let job = try #require(try await schedules.tick(now: now, timeZone: Self.utc).first).jobID
            var status = try await Self.status("poll", stores, transactions)
            #expect(status.lastJobId == job)
            #expect(status.lastJobState == .available)
            #expect(status.lastError == nil)

            let (_, claimed) = try await stores.queue.finishAndClaim([], queue: "default", limit: 1, worker: "w", now: now, leaseUntil: now.addingTimeInterval(30))
            #expect(claimed.map(\.id) == [job])
            let fail = JobResolution(id: job, attempt: 1, queue: "default", kind: "poll", action: .fail(message: "upstream 503", retryAtMs: now.addingTimeInterval(5).millisecondsSince1970))
            _ = try await stores.queue.finishAndClaim([fail], queue: "default", limit: 0, worker: "w", now: now, leaseUntil: now)
            status = try await Self.status("poll", stores, transactions)
            #expect(status.lastJobState == .retryable)
            #expect(status.lastError == "upstream 503")

            try await transactions.write { [admin = stores.admin] tx throws in try admin.cancel(id: job, reason: "given up", now: now, in: tx) }
            status = try await Self.status("poll", stores, transactions)
            #expect(status.lastJobState == .cancelled)
            #expect(status.lastError == "given up")
        }
    }
}

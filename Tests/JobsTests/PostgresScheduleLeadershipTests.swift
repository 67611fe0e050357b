import Foundation
import Jobs
import Logging
@testable import PostgresStores
@testable import SQLiteStores
import Storage
import TestSupport
import Testing
import PostgresStorage

/// Cron across instances on PostgreSQL: of several instances ticking the same schedules at
/// once, only the leader (the holder of the schedules' advisory lock) enqueues, once per tick;
/// when the leader's session ends, another instance takes over at its next tick.
@Suite("Schedules across instances on PostgreSQL", .timeLimit(.minutes(3)))
struct PostgresScheduleLeadershipTests {
    static let start = Date(timeIntervalSince1970: 1_790_000_000)

    @Test func oneInstanceTicksAndAnotherTakesOverWhenTheLeaderGoes() async throws {
        let first = try await TestPostgres.database("leadership", modules: [JobsSchema.self])
        var logger = Logger(label: "second-instance")
        logger.logLevel = .critical
        let second = GatewayPostgres(settings: first.settings, connections: 4, logger: logger)
        second.start()
        let third = GatewayPostgres(settings: first.settings, connections: 4, logger: logger)
        third.start()
        let instances = [first, second, third].map { PostgresScheduleStore(database: $0) }
        let utc = TimeZone(identifier: "UTC")!
        try await instances[0].sync([ScheduleDefinition(name: "poll", kind: "poll", rule: .every(seconds: 60))], now: Self.start, timeZone: utc)

        func tickAll(at now: Date, _ stores: [PostgresScheduleStore]) async throws -> [ScheduleTick] {
            try await withThrowingTaskGroup(of: [ScheduleTick].self) { group in
                for store in stores { group.addTask { try await store.tick(now: now, timeZone: utc) } }
                return try await group.reduce(into: []) { $0 += $1 }
            }
        }
        let firstRound = try await tickAll(at: Self.start + 61, instances)
        #expect(firstRound.count == 1, "three instances, one tick")
        let leaders = await withTaskGroup(of: Bool.self) { group in
            for store in instances { group.addTask { await store.leadership.isLeader() } }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(leaders.filter { $0 }.count == 1, "exactly one leader")
        let leader = try #require(leaders.firstIndex(of: true))

        // The leader goes (its session ends, as when its process dies); the others go on.
        await instances[leader].leadership.resign()
        let rest = instances.indices.filter { $0 != leader }.map { instances[$0] }
        // The server ends the old session (and frees its lock) a moment after the close, so the
        // others tick on, as they would every few seconds, until one has taken over.
        var secondRound: [ScheduleTick] = []
        let giveUp = ContinuousClock.now + .seconds(30)
        while secondRound.isEmpty, ContinuousClock.now < giveUp {
            secondRound = try await tickAll(at: Self.start + 122, rest)
            if secondRound.isEmpty { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(secondRound.count == 1, "another instance took over and ticked once")
        #expect(secondRound.first?.tickMs != firstRound.first?.tickMs)

        for store in instances { await store.leadership.resign() }
        await third.shutdown()
        await second.shutdown()
        await first.shutdown()
    }
}

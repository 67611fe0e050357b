import Foundation
import Testing
@testable import Gradebook

@Suite struct SourceGateTests {
    static let ada = UpstreamCaller.student(accountID: 1), bob = UpstreamCaller.student(accountID: 2), cy = UpstreamCaller.student(accountID: 3)

    @Test func atMostMaxConcurrencyRequestsRunAtOnce() async {
        let gate = SourceGate(maxConcurrency: 2, requestsPerMinute: 60_000, maxWait: .milliseconds(50))
        #expect(await gate.enter(Self.ada) == nil)
        #expect(await gate.enter(Self.bob) == nil)
        let third = await gate.enter(Self.cy)
        #expect(third != nil, "a third request waits, then is refused with a retry time")
        await gate.leave(Self.ada)
        #expect(await gate.enter(Self.cy) == nil, "a slot freed is a slot taken")
    }

    @Test func oneCallerHoldsAtMostHalfTheSlots() async {
        let gate = SourceGate(maxConcurrency: 4, requestsPerMinute: 60_000, maxWait: .milliseconds(20))
        #expect(await gate.enter(Self.ada) == nil)
        #expect(await gate.enter(Self.ada) == nil)
        #expect(await gate.enter(Self.ada) != nil, "a third at once is past Ada's share")
        #expect(await gate.enter(Self.bob) == nil, "Bob still finds a slot")
        await gate.leave(Self.ada)
        #expect(await gate.enter(Self.ada) == nil)
        for caller in [Self.ada, Self.ada, Self.bob] { await gate.leave(caller) }
        #expect(await gate.callersInFlight == 0, "the table holds only callers in flight")
    }

    @Test func anonymousCallersAndQuickHACPollsLeaveRoomForStudents() async {
        let gate = SourceGate(maxConcurrency: 8, requestsPerMinute: 60_000, maxWait: .milliseconds(20))
        var anonymous = 0
        for n in 0..<20 where await gate.enter(.anonymous(clientAddress: "203.0.113.\(n)")) == nil { anonymous += 1 }
        #expect(anonymous == 4, "strangers together hold half the slots")
        var polls = 0
        for _ in 0..<10 where await gate.enter(.quickHACPoll) == nil { polls += 1 }
        #expect(polls == 2, "QuickHAC polls a quarter")
        #expect(await gate.enter(Self.ada) == nil, "a signed-in student still gets in")
        #expect(await gate.enter(Self.bob) == nil)
    }

    @Test func anonymousCallersUseHalfTheRateAtMost() async {
        // 600 a minute: a burst of 60 for the source, 30 for anonymous callers, 15 for polls.
        // The buckets' clock stands still: no refill however slow the machine is.
        let frozen = ContinuousClock.now
        let gate = SourceGate(maxConcurrency: 64, requestsPerMinute: 600, maxWait: .milliseconds(1), tokenTime: { frozen })
        var anonymous = 0, polls = 0, students = 0
        for n in 0..<100 {
            let caller = UpstreamCaller.anonymous(clientAddress: "198.51.100.\(n)")
            if await gate.enter(caller) == nil { anonymous += 1; await gate.leave(caller) }
        }
        for _ in 0..<100 where await gate.enter(.quickHACPoll) == nil { polls += 1; await gate.leave(.quickHACPoll) }
        for n in 0..<100 {
            let caller = UpstreamCaller.student(accountID: Int64(n))
            if await gate.enter(caller) == nil { students += 1; await gate.leave(caller) }
        }
        #expect(anonymous == 30)
        #expect(polls == 15)
        #expect(students == 15, "what strangers and polls left of the burst goes to students")
    }

    @Test func theRateLimitRefusesBeyondItsBurst() async {
        // One a minute: a burst of one, then one every 60 seconds (so even a machine busy with
        // the whole suite can't refill the bucket while the test runs).
        let gate = SourceGate(maxConcurrency: 100, requestsPerMinute: 1, maxWait: .milliseconds(1))
        var admitted = 0
        for _ in 0..<5 {
            if await gate.enter(Self.ada) == nil { admitted += 1; await gate.leave(Self.ada) }
        }
        #expect(admitted == 1)
        let wait = await gate.enter(Self.ada)
        #expect(wait.map { (1...60).contains($0) } == true, "the wait until the next token: \(String(describing: wait))")
    }

    @Test func cacheControlOnlyShortensTheLifetime() {
        #expect(ReplyCache.lifetime(of: nil, default: .seconds(30)) == .seconds(30))
        #expect(ReplyCache.lifetime(of: "private, max-age=5", default: .seconds(30)) == .seconds(5))
        #expect(ReplyCache.lifetime(of: "max-age=600", default: .seconds(30)) == .seconds(30))
        #expect(ReplyCache.lifetime(of: "no-store", default: .seconds(30)) == nil)
        #expect(ReplyCache.lifetime(of: "No-Cache", default: .seconds(30)) == nil)
    }

    @Test func cacheKeysSeparateUsersAndPasswords() {
        let a = ReplyCache.key(source: 1, credentials: GradebookCredentials(username: "a", password: "p"), request: "r")
        let b = ReplyCache.key(source: 1, credentials: GradebookCredentials(username: "b", password: "p"), request: "r")
        let wrong = ReplyCache.key(source: 1, credentials: GradebookCredentials(username: "a", password: "q"), request: "r")
        // "a:b" + "c" must not collide with "a" + "b:c".
        let shifted1 = ReplyCache.key(source: 1, credentials: GradebookCredentials(username: "ab", password: "c"), request: "r")
        let shifted2 = ReplyCache.key(source: 1, credentials: GradebookCredentials(username: "a", password: "bc"), request: "r")
        #expect(Set([a, b, wrong]).count == 3)
        #expect(shifted1 != shifted2)
    }

    @Test func theReplyCacheIsBoundedByBytesNotOnlyEntries() {
        let cache = ReplyCache(lifetime: .seconds(60), capacity: 10_000, maximumBytes: 1 << 20)
        let chunk = Data(repeating: 0x61, count: 60 << 10) // 60 KiB, under a sixteenth of 1 MiB
        for index in 0..<100 {
            cache.store(UpstreamReply(status: 200, contentType: "application/json", cacheControl: nil, body: chunk), for: Data("k\(index)".utf8))
            #expect(cache.bytes <= 1 << 20)
        }
        #expect(cache.count == (1 << 20) / (60 << 10), "as many as fit in the budget")
        #expect(cache.reply(for: Data("k99".utf8)) != nil, "the newest is kept")
        // An answer bigger than a sixteenth of the budget is not kept.
        cache.store(UpstreamReply(status: 200, contentType: nil, cacheControl: nil, body: Data(count: 100 << 10)), for: Data("big".utf8))
        #expect(cache.reply(for: Data("big".utf8)) == nil)
    }
}

import Foundation
import Testing
@testable import Gradebook

@Suite struct SourceGateTests {
    @Test func atMostMaxConcurrencyRequestsRunAtOnce() async {
        let gate = SourceGate(maxConcurrency: 2, requestsPerMinute: 60_000, maxWait: .milliseconds(50))
        #expect(await gate.enter() == nil)
        #expect(await gate.enter() == nil)
        let third = await gate.enter()
        #expect(third != nil, "a third request waits, then is refused with a retry time")
        await gate.leave()
        #expect(await gate.enter() == nil, "a slot freed is a slot taken")
    }

    @Test func theRateLimitRefusesBeyondItsBurst() async {
        // One a minute: a burst of one, then one every 60 seconds (so even a machine busy with
        // the whole suite can't refill the bucket while the test runs).
        let gate = SourceGate(maxConcurrency: 100, requestsPerMinute: 1, maxWait: .milliseconds(1))
        var admitted = 0
        for _ in 0..<5 {
            if await gate.enter() == nil { admitted += 1; await gate.leave() }
        }
        #expect(admitted == 1)
        let wait = await gate.enter()
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

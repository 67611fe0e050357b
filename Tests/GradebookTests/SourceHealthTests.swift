import Foundation
import Gradebook
import Testing

/// Poll back-off per source: doubling pauses up to a cap, in-flight failures don't count twice,
/// one success clears it.
@Suite("Source health")
struct SourceHealthTests {
    let start = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func failuresDoubleThePauseUpToTheCap() {
        var health = SourceHealth(sourceID: 1)
        #expect(health.state(at: start) == .unknown)
        var now = start
        var pauses: [TimeInterval] = []
        for _ in 0..<9 {
            health = health.recordingFailure("the gradebook failed: 500", at: now)
            let until = health.backoffUntil!
            pauses.append(until.timeIntervalSince(now))
            #expect(health.state(at: now) == .backingOff)
            #expect(!health.allowsPoll(at: now))
            now = until
            #expect(health.allowsPoll(at: now))
            #expect(health.state(at: now) == .failing)
        }
        #expect(pauses == [30, 60, 120, 240, 480, 960, 1800, 1800, 1800])
        #expect(health.consecutiveFailures == 9 && health.failures == 9 && health.polls == 9)

        health = health.recordingSuccess(at: now)
        #expect(health.state(at: now) == .healthy)
        #expect(health.consecutiveFailures == 0 && health.backoffUntil == nil && health.lastSuccessAt == now)
        #expect(health.lastError == "the gradebook failed: 500", "the last error stays visible")
    }

    @Test func pollsThatWereUnderWayDontDeepenThePause() {
        // Ten polls of one source fail together: one failure for the back-off, ten in the counts.
        var health = SourceHealth(sourceID: 1)
        for index in 0..<10 { health = health.recordingFailure("timeout", at: start.addingTimeInterval(Double(index) * 0.1)) }
        #expect(health.consecutiveFailures == 1)
        #expect(health.backoffUntil == start.addingTimeInterval(30))
        #expect(health.failures == 10)
    }
}

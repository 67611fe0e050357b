import Foundation
import Push
import Testing

/// Throughput to the loopback stand-in: ~2,000 notifications at once over shared HTTP/2
/// connections. Prints the rate. Environment: `APNS_BENCH_COUNT` (2000),
/// `APNS_BENCH_CONNECTIONS` (4) and `APNS_BENCH_STREAMS` (500) for the channel,
/// `APNS_BENCH_WORKERS` (2) stand-in processes, and `APNS_BENCH_MIN_RATE` (notifications/s) to
/// turn the target into an assertion (off by default: on a 2-core machine the Python stand-in,
/// not the channel, sets the pace).
@Suite("APNs throughput (h2 stand-in)")
struct APNsBenchTests {
    @Test func concurrentNotificationsPerSecond() async throws {
        let environment = ProcessInfo.processInfo.environment
        let count = environment["APNS_BENCH_COUNT"].flatMap(Int.init) ?? 2000
        let connections = environment["APNS_BENCH_CONNECTIONS"].flatMap(Int.init) ?? 4
        let streams = environment["APNS_BENCH_STREAMS"].flatMap(Int.init) ?? 500
        let workers = environment["APNS_BENCH_WORKERS"].flatMap(Int.init) ?? 2
        let token = try APNsFixtures.providerToken()
        let standIn = try APNsStandIn(publicKeyDER: token.publicKeyDER, workers: workers)
        let channel = standIn.channel(token, maxConnectionsPerHost: connections, maxConcurrentStreams: streams)
        defer { channel.shutdown() }

        // Warm up: the TLS connection and the stand-in's one verification of the token.
        #expect(await channel.deliver(APNsFixtures.notification(), to: .apns(
            token: APNsFixtures.deviceToken(), environment: .sandbox, topic: APNsStandIn.topic)) == .delivered(status: 200))
        let report = await channel.measureThroughput(count: count, deviceToken: APNsFixtures.deviceToken(), topic: APNsStandIn.topic)
        print("APNs bench: \(report)")
        #expect(report.outcomes == ["delivered": count])
        #expect(Set(try standIn.records().map(\.connection)).count <= connections)
        if let minimum = environment["APNS_BENCH_MIN_RATE"].flatMap(Double.init) {
            #expect(report.rate >= minimum, "\(Int(report.rate))/s is under the \(Int(minimum))/s target")
        }
    }
}

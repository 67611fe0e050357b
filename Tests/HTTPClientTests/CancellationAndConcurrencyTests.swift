import Foundation
import HTTPClient
import Testing

@Suite("CurlHTTPClient cancellation and concurrency", .timeLimit(.minutes(2)))
struct CancellationAndConcurrencyTests {
    @Test func cancellingTheTaskAbortsARunningTransfer() async throws {
        try await withTestServer { server in
            // The client's own timeout is far past the server's answer: only cancellation ends it.
            let client = makeClient(timeout: .seconds(100))
            defer { client.shutdown() }
            let task = Task {
                try await client.execute(OutboundRequest(url: server.url("/sleep/30000")))
            }
            // Wait until the transfer reached the server (bounded: 10 s).
            for _ in 0..<500 where server.stats.totalRequests == 0 { try await Task.sleep(for: .milliseconds(20)) }
            try #require(server.stats.totalRequests == 1)
            // The server answers after 30 s (a loaded machine still cancels well within that);
            // only an aborted transfer fails with cancellation.
            task.cancel()
            let result = await task.result
            guard case .failure(let error) = result else {
                Issue.record("expected cancellation, got a response")
                return
            }
            #expect(error is CancellationError)
        }
    }

    @Test func cancellingAQueuedRequestReturnsImmediately() async throws {
        try await withTestServer { server in
            let client = makeClient(threads: 1, timeout: .seconds(100))
            defer { client.shutdown() }
            // The slow request holds the only thread far longer than a loaded machine needs to
            // start the second task; it is cancelled at the end, not waited for.
            let busy = Task { try await client.execute(OutboundRequest(url: server.url("/sleep/60000"))) }
            // Wait until the only thread is busy with the slow request (bounded: 10 s).
            for _ in 0..<200 where server.stats.totalRequests == 0 { try await Task.sleep(for: .milliseconds(50)) }
            try #require(server.stats.totalRequests == 1)
            let queued = Task { try await client.execute(OutboundRequest(url: server.url("/echo"))) }
            // Wait until it waits for the busy thread (bounded: 10 s).
            for _ in 0..<500 where client.queuedRequests == 0 { try await Task.sleep(for: .milliseconds(20)) }
            try #require(client.queuedRequests == 1)
            queued.cancel()
            let result = await queued.result
            guard case .failure(let error) = result else {
                Issue.record("expected cancellation, got a response")
                return
            }
            #expect(error is CancellationError)
            #expect(server.stats.totalRequests == 1) // the cancelled request never reached the server
            busy.cancel()
            _ = await busy.result
        }
    }

    @Test func alreadyCancelledTaskDoesNotSend() async throws {
        try await withTestServer { server in
            let client = makeClient()
            defer { client.shutdown() }
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await client.execute(OutboundRequest(url: server.url("/echo")))
            }
            let result = await task.result
            guard case .failure(let error) = result else {
                Issue.record("expected cancellation, got a response")
                return
            }
            #expect(error is CancellationError)
            #expect(server.stats.totalRequests == 0)
        }
    }

    @Test func twentyConcurrentRequestsOnFourThreads() async throws {
        try await withTestServer { server in
            let client = makeClient(threads: 4)
            defer { client.shutdown() }
            let started = ContinuousClock.now
            let statuses = try await withThrowingTaskGroup(of: (Int, OutboundResponse).self) { group in
                for index in 0..<20 {
                    group.addTask {
                        (index, try await client.execute(OutboundRequest(url: server.url("/sleep/200?i=\(index)"))))
                    }
                }
                var results: [Int: Int] = [:]
                for try await (index, response) in group { results[index] = response.status }
                return results
            }
            let elapsed = ContinuousClock.now - started
            #expect(statuses.count == 20)
            #expect(statuses.values.allSatisfy { $0 == 200 })
            // Bounded by the pool: at most 4 at once, so at least 5 rounds of 200 ms.
            #expect(server.stats.maximumConcurrent <= 4)
            #expect(server.stats.maximumConcurrent >= 2)
            #expect(elapsed >= .milliseconds(950))
        }
    }
}

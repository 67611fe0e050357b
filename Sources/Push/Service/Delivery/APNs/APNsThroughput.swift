import Foundation

/// What ``APNsChannel/measureThroughput(count:deviceToken:environment:topic:)`` measured.
public struct APNsThroughputReport: Sendable, CustomStringConvertible {
    /// Notifications sent.
    public var count: Int
    /// Wall time from the first send to the last answer.
    public var seconds: Double
    /// Outcomes by kind (`delivered`, `retry`, …).
    public var outcomes: [String: Int]
    /// Connections the channel opened during the run.
    public var connectionsOpened: Int

    /// Notifications per second.
    public var rate: Double { seconds > 0 ? Double(count) / seconds : 0 }

    public var description: String {
        let kinds = outcomes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        return "\(count) notifications in \(String(format: "%.3f", seconds)) s: \(Int(rate.rounded()))/s over \(connectionsOpened) new connection(s) [\(kinds)]"
    }
}

extension APNsChannel {
    /// Sends `count` notifications to one device all at once (each its own task) and reports
    /// the rate. For benchmarks against a stand-in, never against Apple.
    public func measureThroughput(
        count: Int, deviceToken: String, environment: APNsEnvironment = .sandbox, topic: String
    ) async -> APNsThroughputReport {
        let connectionsBefore = connectionsOpened
        let start = ContinuousClock.now
        // Two levels of task groups (batches of 256): a group finds a finished child by a linear
        // search, so one group of many thousand children would cost more than the sending.
        let batch = 256
        let outcomes = await withTaskGroup(of: [String: Int].self, returning: [String: Int].self) { batches in
            for first in stride(from: 0, to: count, by: batch) {
                batches.addTask {
                    await withTaskGroup(of: String.self, returning: [String: Int].self) { group in
                        for index in first..<min(first + batch, count) {
                            group.addTask {
                                let notification = OutgoingNotification(
                                    id: UUID().uuidString, category: "test", title: "Benchmark", body: "Notification \(index)")
                                let result = await self.send(notification, deviceToken: deviceToken, environment: environment, topic: topic)
                                return Self.kind(of: result.outcome)
                            }
                        }
                        var tally: [String: Int] = [:]
                        for await kind in group { tally[kind, default: 0] += 1 }
                        return tally
                    }
                }
            }
            var tally: [String: Int] = [:]
            for await part in batches { tally.merge(part, uniquingKeysWith: +) }
            return tally
        }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return APNsThroughputReport(
            count: count, seconds: seconds, outcomes: outcomes, connectionsOpened: connectionsOpened - connectionsBefore)
    }

    private static func kind(of outcome: DeliveryOutcome) -> String {
        switch outcome {
        case .delivered: "delivered"
        case .retry: "retry"
        case .discarded: "discarded"
        case .deactivate: "deactivate"
        case .unregistered: "unregistered"
        }
    }
}

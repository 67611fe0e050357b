import Foundation
import GatewayCore
import HTTPClient
import Logging

/// What the two channels to user-supplied endpoints (webhooks and Web Push) share: the client
/// that sends, the clock, a logger tagged with the channel, and the endpoint pre-check
/// (``PushEndpointPolicy``), whose allow list is the client's when the client is a
/// `CurlHTTPClient`. Sending maps a transport failure to an outcome and logs a refused
/// destination by host only.
struct UserEndpointSender: Sendable {
    let client: any HTTPClient
    let clock: any GatewayClock
    let logger: Logger
    let policy: PushEndpointPolicy

    init(channel: String, client: any HTTPClient, allowInsecureLoopbackForTesting: Bool, clock: any GatewayClock, logger: Logger) {
        self.client = client
        self.clock = clock
        var logger = logger
        logger[metadataKey: "channel"] = "\(channel)"
        self.logger = logger
        self.policy = PushEndpointPolicy(
            allowInsecureLoopbackForTesting: allowInsecureLoopbackForTesting,
            allowedDestinations: (client as? CurlHTTPClient)?.configuration.allowedDestinations ?? .none
        )
    }

    /// Sends one request to `host` and reads the answer with `outcome`; a request that never got
    /// an answer becomes ``HTTPDeliveryMapping/outcome(for:)``.
    func send(_ request: () throws -> OutboundRequest, host: String?, outcome: (OutboundResponse) -> DeliveryOutcome) async -> DeliveryOutcome {
        do {
            return outcome(try await client.execute(request()))
        } catch {
            HTTPDeliveryMapping.logRefusal(error, host: host, logger: logger)
            return HTTPDeliveryMapping.outcome(for: error)
        }
    }

    /// One debug line per attempt: the notification, the endpoint's host (never its path, which
    /// identifies the subscriber) and the outcome.
    func logAttempt(_ notification: OutgoingNotification, host: String?, outcome: DeliveryOutcome) {
        logger.debug("delivery attempt", metadata: [
            "notification": "\(notification.id)", "host": "\(host ?? "?")", "outcome": "\(outcome)",
        ])
    }
}

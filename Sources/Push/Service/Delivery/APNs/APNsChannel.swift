public import Foundation
import HTTPClient

/// Delivers notifications to iOS devices through Apple Push Notification service: HTTP/2
/// `POST /3/device/{token}` over libcurl, authenticated with a provider token
/// (``APNsProviderToken``, an ES256 JWT reused for 40 minutes).
///
/// Every delivery goes through one libcurl multi handle, so concurrent notifications share a
/// few HTTP/2 connections as multiplexed streams: at most ``Configuration/maxConnectionsPerHost``
/// connections of ``Configuration/maxConcurrentStreams`` streams each; more notifications wait
/// for a free stream, in order. Answers are classified by ``APNsResponse``:
/// 410 Unregistered becomes `.unregistered(since:)`, BadDeviceToken and
/// DeviceTokenNotForTopic `.deactivate`, 429 and 5xx `.retry` (the caller backs off), other
/// 4xx `.discarded` with APNs' reason. A malformed device token is refused before sending
/// (`.deactivate`), as is a payload over 4 KB (`.discarded`).
///
/// Call ``shutdown()`` when done; deliveries still in flight then end as `.retry`.
/// Never logs payloads, device tokens, the provider token or the key.
public final class APNsChannel: NotificationChannel {
    /// Where and how to connect.
    public struct Configuration: Sendable {
        /// Used instead of the environment's APNs host when set (tests: a local stand-in).
        public var baseURL: URL?
        /// A PEM file of extra trust anchors, e.g. a test stand-in's certificate.
        public var additionalCAFile: String?
        /// At most this many connections per APNs host (`CURLMOPT_MAX_HOST_CONNECTIONS`, at
        /// least 1). Once every stream of every connection is busy, further notifications wait
        /// in libcurl's queue: without a limit libcurl would open a connection for each one.
        public var maxConnectionsPerHost: Int
        /// Streams per connection before libcurl uses (or opens) another. APNs advertises its
        /// own limit, which varies with load; streams over it are refused and retried by libcurl.
        public var maxConcurrentStreams: Int
        /// One request on the wire, connection included (not the time it may wait for a free
        /// stream when every connection's streams are busy).
        public var requestTimeout: Duration
        public var connectTimeout: Duration

        public init(
            baseURL: URL? = nil, additionalCAFile: String? = nil, maxConnectionsPerHost: Int = 4,
            maxConcurrentStreams: Int = 500, requestTimeout: Duration = .seconds(30), connectTimeout: Duration = .seconds(10)
        ) {
            self.baseURL = baseURL
            self.additionalCAFile = additionalCAFile
            self.maxConnectionsPerHost = max(maxConnectionsPerHost, 1)
            self.maxConcurrentStreams = max(maxConcurrentStreams, 1)
            self.requestTimeout = requestTimeout
            self.connectTimeout = connectTimeout
        }
    }

    /// Apple's host for `environment`.
    public static func baseURL(for environment: APNsEnvironment) -> URL {
        switch environment {
        case .sandbox: URL(string: "https://api.sandbox.push.apple.com")!
        case .production: URL(string: "https://api.push.apple.com")!
        }
    }

    public let configuration: Configuration
    private let providerToken: APNsProviderToken
    private let executor: CurlMultiExecutor

    public init(providerToken: APNsProviderToken, configuration: Configuration = Configuration()) {
        self.providerToken = providerToken
        self.configuration = configuration
        executor = CurlMultiExecutor(options: CurlMultiOptions(
            additionalCAFile: configuration.additionalCAFile,
            maxHostConnections: configuration.maxConnectionsPerHost,
            maxConcurrentStreams: configuration.maxConcurrentStreams,
            connectTimeoutMilliseconds: Self.milliseconds(configuration.connectTimeout)
        ))
    }

    /// Sends `notification` to an `.apns` address; any other address is discarded.
    public func deliver(_ notification: OutgoingNotification, to address: DeviceAddress) async -> DeliveryOutcome {
        guard case .apns(let token, let environment, let topic) = address else {
            return .discarded(reason: "not an APNs device address")
        }
        return await send(notification, deviceToken: token, environment: environment, topic: topic).outcome
    }

    /// The result of one send: the classified outcome, and APNs' answer when there was one.
    public struct SendResult: Sendable, Equatable {
        public var outcome: DeliveryOutcome
        /// `nil` when nothing was sent or no answer arrived.
        public var response: APNsResponse?
    }

    /// Validates, signs and sends one notification, and classifies the answer.
    public func send(
        _ notification: OutgoingNotification, deviceToken: String, environment: APNsEnvironment, topic: String, now: Date = Date()
    ) async -> SendResult {
        if let expiresAt = notification.expiresAt, expiresAt <= now {
            return SendResult(outcome: .discarded(reason: "expired before it was sent"))
        }
        let request: APNsRequest
        do {
            request = try APNsRequest(notification, deviceToken: deviceToken, topic: topic)
        } catch {
            // A malformed token never becomes valid; anything else is this notification's fault.
            if case .invalidDeviceToken = error { return SendResult(outcome: .deactivate(reason: error.description)) }
            return SendResult(outcome: .discarded(reason: error.description))
        }
        let bearer = providerToken.current()
        let base = (configuration.baseURL ?? Self.baseURL(for: environment)).absoluteString
        let url = (base.hasSuffix("/") ? String(base.dropLast()) : base) + request.path
        let result = await executor.perform(CurlMultiRequest(
            url: url, headerLines: request.headerLines(bearer: bearer), body: request.payload,
            timeoutMilliseconds: Self.milliseconds(configuration.requestTimeout)))
        switch result {
        case .success(let answer):
            let response = APNsResponse(status: answer.status, headers: answer.headers, body: answer.body)
            if response.isExpiredProviderToken { providerToken.invalidate(bearer) }
            return SendResult(outcome: response.outcome, response: response)
        case .failure(.shutDown):
            return SendResult(outcome: .retry(after: nil, reason: "the APNs connection pool is shut down"))
        case .failure(let error):
            return SendResult(outcome: .retry(after: nil, reason: error.description))
        }
    }

    /// Connections opened to APNs so far (for metrics and the multiplexing check).
    public var connectionsOpened: Int { executor.connectionsOpened }

    /// Stops the connection pool: deliveries in flight and later ones end as `.retry`.
    public func shutdown() { executor.shutdown() }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000), 1)
    }
}

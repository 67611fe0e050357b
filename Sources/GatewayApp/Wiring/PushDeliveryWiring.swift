import Contracts
import Foundation
import GatewayCore
import HTTPClient
import Jobs
import Logging
import Push

/// What Push delivers through, built from the configuration: the webhook, Web Push and APNs
/// channels (each lane with its own transfer threads), the mail sender (``EmailWiring``), the
/// delivery lanes and Push's settings. Configuration is read here and in ``EmailWiring`` only.
struct PushDeliveryWiring {
    let channels: NotificationChannels
    let mail: PushModule.Mail
    let sms: PushModule.SMS
    let lanes: DeliveryLanes
    let settings: PushModule.Settings
    /// The Web Push VAPID keys (a demo makes its own); nil without.
    let vapidKeys: VAPIDKeys?

    init(configuration: GatewayConfiguration, developmentDestinations: DestinationAllowList, clock: any GatewayClock, logger: Logger) throws {
        // User-supplied endpoints (webhooks, Web Push): public addresses only, unless the operator
        // relaxes it for a demo on one machine. Each lane has its own transfer threads, as many as
        // it may have deliveries in flight (DeliveryLanes), so a slow webhook never holds a
        // thread Web Push or email needs.
        let destinations = (configuration.allowInsecurePushEndpoints ? developmentDestinations : .none)
            .union(configuration.pushAllowedDestinations)
        let workers = configuration.jobs.limit(of: PushJobs.queue)
        lanes = DeliveryLanes(configuration: workers.map { configuration.pushLanes.fitting(workers: $0) } ?? configuration.pushLanes)
        let webhookClient = CurlHTTPClient(configuration: .init(
            threadCount: lanes.configuration.webhook.total, defaultTimeout: .seconds(30), maxRedirects: 0,
            allowedDestinations: destinations, logger: logger
        ))
        var channels = NotificationChannels(
            webhook: WebhookChannel(
                client: webhookClient,
                configuration: .init(allowInsecureLoopbackForTesting: configuration.allowInsecurePushEndpoints),
                clock: clock, logger: logger
            ),
            log: LogChannel(logger: logger)
        )
        let vapidKeys = configuration.vapidKeys ?? (configuration.demo ? VAPIDKeys.generate() : nil)
        if let vapidKeys {
            let webPushClient = CurlHTTPClient(configuration: .init(
                threadCount: lanes.configuration.webPush.total, defaultTimeout: .seconds(30), maxRedirects: 0,
                allowedDestinations: destinations, logger: logger
            ))
            let signer: VAPIDSigner
            do { signer = try VAPIDSigner(keys: vapidKeys, subject: configuration.vapidSubject) } catch {
                throw StartupRefusal("GATEWAY_VAPID_SUBJECT: \(error)")
            }
            channels.webPush = WebPushChannel(
                client: webPushClient,
                configuration: .init(vapid: signer, allowInsecureLoopbackForTesting: configuration.allowInsecurePushEndpoints),
                clock: clock, logger: logger
            )
        }
        if let apns = configuration.apns {
            let token: APNsProviderToken
            do {
                token = try APNsProviderToken(
                    p8File: URL(fileURLWithPath: apns.keyFile), teamID: apns.teamID, keyID: apns.keyID, now: { [clock] in clock.now() }
                )
            } catch {
                throw StartupRefusal("APNs: \(error) (GATEWAY_APNS_KEY_FILE, GATEWAY_APNS_KEY_ID, GATEWAY_APNS_TEAM_ID)")
            }
            channels.apns = APNsChannel(providerToken: token, configuration: .init(baseURL: apns.baseURL, additionalCAFile: apns.caFile))
        }
        self.channels = channels
        self.vapidKeys = vapidKeys
        // Mail goes to the operator's SMTP server only.
        let mailClient = CurlHTTPClient(configuration: .init(threadCount: 4, defaultTimeout: .seconds(30), maxRedirects: 0, logger: logger))
        mail = try EmailWiring(configuration: configuration, client: mailClient, logger: logger).mail
        sms = try SMSWiring(configuration: configuration, clock: clock, logger: logger).sms
        settings = PushModule.Settings(
            allowInsecureEndpoints: configuration.allowInsecurePushEndpoints, allowedDestinations: configuration.pushAllowedDestinations,
            quickHACTopic: configuration.quickHACTopic, quickHACEnvironment: configuration.quickHACEnvironment,
            quickHACRequestsPerMinute: configuration.quickHACRequestsPerMinute, gradePollTickSeconds: configuration.gradePollTickSeconds,
            vapidPublicKey: vapidKeys?.publicKeyBase64URL, confirmationsPerHour: configuration.confirmationsPerHour
        )
    }
}

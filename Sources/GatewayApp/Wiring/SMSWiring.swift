import Foundation
import GatewayCore
import HTTPClient
import Logging
import Push

/// Chooses how texts leave and how inbound ones are checked, from the configuration: Twilio's
/// REST API through libcurl on transfer threads of its own when `sms` is set (with a public URL,
/// which the inbound signature covers, or the server refuses to start); the log sender in a
/// demo; otherwise a sender that discards texts with the reason kept, and inbound posts refused.
struct SMSWiring {
    let sms: PushModule.SMS

    init(configuration: GatewayConfiguration, clock: any GatewayClock, logger: Logger) throws {
        let host = configuration.host == "0.0.0.0" || configuration.host == "::" ? "127.0.0.1" : configuration.host
        guard let settings = configuration.sms else {
            let publicURL = configuration.publicURL ?? URL(string: "http://\(host):\(configuration.port)")!
            sms = PushModule.SMS(
                sender: configuration.demo ? LogSMSSender(logger: logger) : UnconfiguredSMSSender(), publicURL: publicURL, inbound: nil,
                countries: configuration.smsCountries
            )
            return
        }
        guard let publicURL = configuration.publicURL else {
            throw StartupRefusal("text messages need GATEWAY_PUBLIC_URL (the https address the provider posts inbound texts to, and the texts' links)")
        }
        guard settings.from.hasPrefix("MG") || (try? PhoneNumber(validating: settings.from)) != nil else {
            throw StartupRefusal("GATEWAY_SMS_FROM must be a number in E.164 form (+16195550123) or a Messaging Service SID (MG...)")
        }
        guard let scheme = settings.apiURL.scheme?.lowercased(), scheme == "https" || scheme == "http", settings.apiURL.host != nil,
              settings.apiURL.user == nil else {
            throw StartupRefusal("GATEWAY_SMS_API_URL must be an absolute URL such as https://api.twilio.com")
        }
        // The provider's host is the operator's choice (a stand-in on a private network
        // included): it is the one destination allowed beyond public addresses.
        let allowed = (try? DestinationAllowList([settings.apiURL.host ?? ""])) ?? .none
        let client = CurlHTTPClient(configuration: .init(
            threadCount: 2, defaultTimeout: .seconds(30), maxRedirects: 0, allowedDestinations: allowed, logger: logger
        ))
        let twilio = TwilioSMSSender.Configuration(apiURL: settings.apiURL, accountSID: settings.accountSID, authToken: settings.authToken, from: settings.from)
        logger.info("sms: Twilio", metadata: ["provider": "\(twilio)", "countries": "\(configuration.smsCountries)"])
        var base = publicURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        sms = PushModule.SMS(
            sender: TwilioSMSSender(configuration: twilio, client: client, clock: clock, logger: logger), publicURL: publicURL,
            inbound: SMSDevices.Inbound(url: base + "/v1/sms/inbound", accountSID: settings.accountSID, authToken: settings.authToken),
            countries: configuration.smsCountries
        )
    }
}

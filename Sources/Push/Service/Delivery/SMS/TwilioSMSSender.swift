public import Foundation
public import GatewayCore
public import HTTPClient
public import Logging

/// Sends texts through a Twilio-compatible REST API: `POST {apiURL}/2010-04-01/Accounts/{sid}/Messages.json`,
/// form-encoded `To`, `From` (or `MessagingServiceSid` when the sender is a Messaging Service,
/// `MG...`) and `Body`, with HTTP Basic auth (account SID : auth token).
///
/// Answers: 201 (any 2xx) delivered; 429 and 5xx retried, after `Retry-After` when given; a
/// Twilio error `{"code","message","more_info","status"}` with 21610 (the recipient texted STOP)
/// deactivates the device with ``SMSOutcome/optedOutReason``, 21211 and 21614 (not a valid or
/// not a mobile number) deactivate it; 401 and 403 (the gateway's credentials) are retried, as
/// the operator can fix them; any other 4xx is discarded with Twilio's code. Transport
/// failures retry. The auth token is never logged (``Configuration`` hides it), nor the text,
/// nor Twilio's message (it may quote the number); logs carry the code and the masked number.
public struct TwilioSMSSender: SMSSender {
    public struct Configuration: Sendable, CustomStringConvertible {
        /// `https://api.twilio.com` (`GATEWAY_SMS_API_URL`), without a trailing slash.
        public var apiURL: URL
        public var accountSID: String
        public var authToken: String
        /// A number in E.164 form, or a Messaging Service SID (`MG` and 32 hex digits).
        public var from: String
        public var requestTimeout: Duration

        public init(apiURL: URL, accountSID: String, authToken: String, from: String, requestTimeout: Duration = .seconds(15)) {
            self.apiURL = apiURL
            self.accountSID = accountSID
            self.authToken = authToken
            self.from = from
            self.requestTimeout = requestTimeout
        }

        /// Whether `from` is a Messaging Service SID rather than a number.
        public var fromIsMessagingService: Bool { from.hasPrefix("MG") && from.utf8.count == 34 }

        /// The Messages resource of the account.
        public var messagesURL: URL {
            var base = apiURL.absoluteString
            while base.hasSuffix("/") { base.removeLast() }
            return URL(string: "\(base)/2010-04-01/Accounts/\(accountSID)/Messages.json")!
        }

        public var description: String {
            "Twilio(\(apiURL.scheme ?? "?")://\(apiURL.host ?? "?")\(apiURL.port.map { ":\($0)" } ?? ""), account \(accountSID), from \(fromIsMessagingService ? from : PhoneNumber.mask(from)), token set)"
        }
    }

    /// Twilio's error codes the sender acts on.
    public enum ErrorCode {
        /// The recipient texted STOP to this sender.
        public static let unsubscribed = 21610
        /// The 'To' number is not a valid phone number.
        public static let invalidNumber = 21211
        /// The 'To' number is not a mobile number.
        public static let notMobile = 21614
    }

    let configuration: Configuration
    let client: any HTTPClient
    let clock: any GatewayClock
    let logger: Logger

    public init(configuration: Configuration, client: any HTTPClient, clock: any GatewayClock = SystemClock(), logger: Logger = Logger(label: "campus-gateway.push")) {
        self.configuration = configuration
        self.client = client
        self.clock = clock
        var logger = logger
        logger[metadataKey: "channel"] = "sms"
        self.logger = logger
    }

    /// The request for one text.
    func request(_ message: SMSMessage) -> OutboundRequest {
        let sender = configuration.fromIsMessagingService ? ("MessagingServiceSid", configuration.from) : ("From", configuration.from)
        let body = FormEncoding.encode([("To", message.to.value), sender, ("Body", message.body)])
        return OutboundRequest(
            method: .post, url: configuration.messagesURL,
            headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"],
            body: Data(body.utf8), timeout: configuration.requestTimeout, followRedirects: false,
            basicCredentials: BasicCredentials(username: configuration.accountSID, password: configuration.authToken),
            maxResponseBodySize: 64 * 1024
        )
    }

    public func send(_ message: SMSMessage, purpose: SMSPurpose) async -> DeliveryOutcome {
        let response: OutboundResponse
        do {
            response = try await client.execute(request(message))
        } catch {
            logger.warning("SMS provider unreachable", metadata: ["error": "\(error)"])
            guard case .retry(_, let kind) = HTTPDeliveryMapping.outcome(for: error) else {
                return .retry(after: nil, reason: "the SMS provider could not be reached")
            }
            return .retry(after: nil, reason: "the SMS provider could not be reached: \(kind)")
        }
        let outcome = Self.outcome(for: response, now: clock.now())
        switch outcome {
        case .delivered: break
        default:
            logger.warning("text refused by the SMS provider", metadata: [
                "status": "\(response.status)", "twilio_code": "\(Self.twilioError(response.body)?.code.map(String.init) ?? "-")",
                "more_info": "\(Self.twilioError(response.body)?.moreInfo ?? "-")", "to": "\(message.to.masked)",
            ])
        }
        return outcome
    }

    /// Twilio's error body.
    struct TwilioError: Decodable {
        var code: Int?
        var message: String?
        var moreInfo: String?
        var status: Int?

        enum CodingKeys: String, CodingKey {
            case code, message, status
            case moreInfo = "more_info"
        }
    }

    static func twilioError(_ body: Data) -> TwilioError? {
        try? JSONDecoder().decode(TwilioError.self, from: body)
    }

    /// What Twilio's answer means.
    static func outcome(for response: OutboundResponse, now: Date) -> DeliveryOutcome {
        switch response.status {
        case 200..<300:
            return .delivered(status: response.status)
        case 429, 500..<600:
            return HTTPDeliveryMapping.retry(response, now: now, from: "the SMS provider")
        case 401, 403:
            return .retry(after: nil, reason: "the SMS provider refused the gateway's credentials (\(response.status))")
        default:
            let code = twilioError(response.body)?.code
            switch code {
            case ErrorCode.unsubscribed?:
                return .deactivate(reason: SMSOutcome.optedOutReason)
            case ErrorCode.invalidNumber?, ErrorCode.notMobile?:
                return .deactivate(reason: "the SMS provider refused the number as not a valid mobile number (Twilio \(code ?? 0))")
            default:
                return .discarded(reason: "the SMS provider refused the text (\(response.status)\(code.map { ", Twilio \($0)" } ?? ""))")
            }
        }
    }
}

import Foundation
public import GatewayCore
public import GatewayHTTP
public import Hummingbird
import NIOCore

/// The carrier's side of text messages: `POST /v1/sms/inbound`, where the provider (Twilio)
/// posts every text sent to the gateway's number, form-encoded (`From`, `To`, `Body`,
/// `MessageSid`, `AccountSid`, ...). Anonymous, but each post must carry a valid
/// `X-Twilio-Signature` (``SMSDevices/receive(fields:signature:)``): missing or wrong is 403 and
/// changes nothing, as is any post while no provider is configured. Bodies are bounded
/// (``maximumBody``) and each client network is rate-limited. The answer is an empty TwiML
/// document: carriers send their own STOP and START confirmations.
public struct SMSRoutes: Sendable {
    let sms: SMSDevices
    let throttle: RateLimit?
    let clock: any GatewayClock

    /// The largest inbound post read (Twilio's are a few hundred bytes to a few KiB).
    public static let maximumBody = 16 * 1024
    /// The empty TwiML answer.
    public static let emptyTwiML = #"<?xml version="1.0" encoding="UTF-8"?><Response></Response>"#

    public init(sms: SMSDevices, requestsPerMinute: Int, clock: any GatewayClock) {
        self.sms = sms
        self.throttle = requestsPerMinute > 0 ? RateLimit(limit: requestsPerMinute, window: 60) : nil
        self.clock = clock
    }

    public func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let sms = self.sms, throttle = self.throttle, clock = self.clock
        guarded.group(router, "v1/sms", access: .public).post("inbound") { request, context in
            if let throttle, let wait = throttle.take(context.clientAddress.map(ClientNetwork.key) ?? "unknown", now: clock.now()) {
                throw PushError.smsInboundThrottled(retryAfterSeconds: wait)
            }
            let buffer: ByteBuffer
            do {
                buffer = try await request.body.collect(upTo: min(context.maxUploadSize, Self.maximumBody))
            } catch {
                throw Problem.payloadTooLarge(limit: Self.maximumBody)
            }
            let fields = FormEncoding.decode(String(buffer: buffer))
            _ = try await sms.receive(fields: fields, signature: request.headers[HTTPField.Name("X-Twilio-Signature")!])
            var headers = HTTPFields()
            headers[.contentType] = "text/xml"
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: Self.emptyTwiML)))
        }
    }
}

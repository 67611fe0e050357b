public import Foundation
public import HTTPTypes
public import HummingbirdTesting
import NIOCore

/// What the Push suites of several targets share: a valid Web Push subscription's keys, and
/// how to read a device's id and a confirmation mail's code.
public enum PushTestValues {
    /// A valid Web Push subscription's keys (a P-256 point and 16 bytes, base64url).
    public static let p256dh = "BIXIztayj80dJI6l_SaSEqczGEZQ6wH0emt-jYlWweyewfaE77sitjVTVtieugSI36-Gj11imvIVsT73_K160W0"
    public static let auth = "ooiKGhbOhksX_cGaT7VXwQ"

    public struct Missing: Error, CustomStringConvertible {
        public let description: String
    }

    /// The id of the device a `POST /v1/me/devices` answered with.
    public static func deviceID(_ reply: HTTPReply) throws -> Int {
        guard let id = (reply.object["device"] as? [String: Any])?["id"] as? Int else {
            throw Missing(description: "no device id in \(reply.status) \(reply.body)")
        }
        return id
    }
}

extension SMTPStandIn.Message {
    /// The code a confirmation mail carries.
    public func confirmationCode() throws -> String {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Your confirmation code: ") }) else {
            throw PushTestValues.Missing(description: "no confirmation code in \(text)")
        }
        return String(line.dropFirst("Your confirmation code: ".count))
    }
}

extension PushTestValues {
    /// The token of a mail's link (`...?token=<43 characters>`).
    public static func linkToken(in link: String) throws -> String {
        guard let range = link.range(of: "token=") else { throw Missing(description: "no token in \(link)") }
        return String(link[range.upperBound...].prefix(43))
    }
}

extension TestClientProtocol {
    /// What a mail client does with `List-Unsubscribe-Post: List-Unsubscribe=One-Click`: a form
    /// POST to the mail's unsubscribe link (`token` is the link's token).
    public func oneClickUnsubscribe(token: String) async throws -> HTTPResponse.Status {
        var headers = HTTPFields()
        headers[.contentType] = "application/x-www-form-urlencoded"
        return try await execute(uri: "/v1/email/unsubscribe?token=\(token)", method: .post, headers: headers,
                                 body: ByteBuffer(string: "List-Unsubscribe=One-Click")) { $0.status }
    }
}

extension TestClientProtocol {
    /// A QuickHAC call (`/ios/...`): a form POST of `form` to `path`, and its status and JSON answer.
    public func quickHAC(_ path: String, _ form: String) async throws -> (HTTPResponse.Status, [String: Any]) {
        try await execute(
            uri: path, method: .post, headers: [.contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: form)
        ) { response in
            (response.status, (try? JSONSerialization.jsonObject(with: Data(String(buffer: response.body).utf8)) as? [String: Any]) ?? [:])
        }
    }
}

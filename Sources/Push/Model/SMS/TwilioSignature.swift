public import Crypto
public import Foundation
import GatewayCore

/// Twilio's webhook signature (`X-Twilio-Signature`): base64 of HMAC-SHA1, keyed with the
/// account's auth token, over the full URL Twilio posted to followed by every POST parameter's
/// name and value, concatenated with nothing between, the parameters sorted by name (and, for a
/// name given twice, by value). See Twilio's "Webhooks security".
public enum TwilioSignature {
    /// The signature Twilio sends for a POST of `parameters` to `url`.
    public static func sign(url: String, parameters: [(name: String, value: String)], authToken: String) -> String {
        var data = Data(url.utf8)
        let sorted = parameters.sorted { $0.name == $1.name ? $0.value.utf8.lexicographicallyPrecedes($1.value.utf8) : $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        for parameter in sorted {
            data.append(contentsOf: parameter.name.utf8)
            data.append(contentsOf: parameter.value.utf8)
        }
        let mac = HMAC<Insecure.SHA1>.authenticationCode(for: data, using: SymmetricKey(data: Data(authToken.utf8)))
        return Data(mac).base64EncodedString()
    }

    /// Whether `signature` is the one for this request, compared in constant time. An empty
    /// token or signature never verifies.
    public static func verify(_ signature: String?, url: String, parameters: [(name: String, value: String)], authToken: String) -> Bool {
        guard let signature, !signature.isEmpty, !authToken.isEmpty else { return false }
        let expected = sign(url: url, parameters: parameters, authToken: authToken)
        return constantTimeEquals(Array(expected.utf8), Array(signature.utf8))
    }
}

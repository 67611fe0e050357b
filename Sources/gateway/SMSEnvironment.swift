import Foundation
import GatewayApp
import Push

/// The one place text messages are configured from the environment: `GATEWAY_SMS_API_URL`
/// (default `https://api.twilio.com`), `GATEWAY_SMS_ACCOUNT_SID`, `GATEWAY_SMS_AUTH_TOKEN_FILE`
/// (the file's contents, whitespace trimmed) and `GATEWAY_SMS_FROM`. Environment only (a token
/// on the command line would show in `ps`); errors name the variable, never a value (but for
/// `GATEWAY_SMS_COUNTRIES`, the countries texted, whose refused code is named).
enum SMSEnvironment {
    static func apply(to config: inout GatewayConfiguration) throws {
        if let raw = Env.string("sms-countries") {
            do {
                config.smsCountries = try SMSCountries(parsing: raw)
            } catch {
                throw GatewayCLIError("GATEWAY_SMS_COUNTRIES: \(error) (comma-separated calling codes, e.g. 1,44)")
            }
        }
        let names = ["sms-api-url", "sms-auth-token-file", "sms-from"]
        guard let sid = Env.string("sms-account-sid") else {
            if names.contains(where: { Env.string($0) != nil }) { throw GatewayCLIError("the GATEWAY_SMS_* settings need GATEWAY_SMS_ACCOUNT_SID") }
            return
        }
        guard sid.utf8.count <= 64, sid.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) }) else {
            throw GatewayCLIError("GATEWAY_SMS_ACCOUNT_SID must be the account SID (AC followed by 32 hex digits)")
        }
        guard let file = Env.string("sms-auth-token-file") else { throw GatewayCLIError("GATEWAY_SMS_ACCOUNT_SID needs GATEWAY_SMS_AUTH_TOKEN_FILE") }
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw GatewayCLIError("GATEWAY_SMS_AUTH_TOKEN_FILE: cannot read \(file)")
        }
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { throw GatewayCLIError("GATEWAY_SMS_AUTH_TOKEN_FILE is empty") }
        guard let from = Env.string("sms-from") else {
            throw GatewayCLIError("GATEWAY_SMS_ACCOUNT_SID needs GATEWAY_SMS_FROM (the sending number or Messaging Service SID)")
        }
        var apiURL = SMSSettings.defaultAPIURL
        if let raw = Env.string("sms-api-url") {
            guard let url = URL(string: raw), url.scheme != nil, url.host != nil else { throw GatewayCLIError("GATEWAY_SMS_API_URL is not an absolute URL") }
            apiURL = url
        }
        config.sms = SMSSettings(apiURL: apiURL, accountSID: sid, authToken: token, from: from)
    }
}

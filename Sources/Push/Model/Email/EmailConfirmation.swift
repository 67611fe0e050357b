import GatewayCore
import Crypto
public import Foundation

/// The rules of confirming an email address, pure: the code and the link's token (random,
/// only their SHA-256 stored), how long they live, how many wrong codes kill them, and how
/// many unconfirmed addresses and confirmation mails a student may have.
public enum EmailConfirmation {
    /// Digits in a confirmation code.
    public static let codeDigits = 6
    /// How long a mailed code and link work.
    public static let lifetime: TimeInterval = 24 * 3600
    /// Wrong codes before the pending confirmation dies (a new mail is needed).
    public static let maximumAttempts = 5
    /// Addresses a student may have waiting for confirmation at once.
    public static let maximumUnconfirmed = 3
    /// Confirmation mails one address (device) may be sent in any 24 hours.
    public static let mailsPerDevice = 3
    /// Confirmation mails one student may cause in any 24 hours, whatever the addresses (so
    /// removing and adding addresses doesn't reset the count).
    public static let mailsPerAccount = 10
    /// The sliding window of both mail limits.
    public static let mailWindow: TimeInterval = 24 * 3600

    /// A fresh code of ``codeDigits`` decimal digits, uniform.
    public static func newCode() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<codeDigits).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
    }

    /// A fresh link token: 32 random bytes, unpadded base64url (43 characters).
    public static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return base64URL(Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }))
    }

    /// What is stored for a code: SHA-256 of the device id and the code, so a code is bound to
    /// its device.
    public static func codeHash(_ code: String, deviceID: Int64) -> Data {
        Data(SHA256.hash(data: Data("email-code:\(deviceID):\(code)".utf8)))
    }

    /// What is stored for a link or unsubscribe token: its SHA-256.
    public static func tokenHash(_ token: String) -> Data {
        Data(SHA256.hash(data: Data(token.utf8)))
    }

    /// Whether `raw` has the shape of a token ``newToken()`` makes (checked before any lookup).
    public static func isTokenShaped(_ raw: String) -> Bool {
        raw.utf8.count == 43 && raw.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F
        }
    }

    /// Whether another confirmation mail may be sent now, given when the device's and the
    /// account's earlier ones were asked for; otherwise how many seconds until one may.
    public static func mailAllowed(deviceMails: [Date], accountMails: [Date], now: Date) -> MailQuota {
        let since = now.addingTimeInterval(-mailWindow)
        func wait(_ times: [Date], limit: Int) -> Int? {
            let recent = times.filter { $0 > since }.sorted()
            guard recent.count >= limit else { return nil }
            // The oldest that must leave the window for one slot to free.
            let freeing = recent[recent.count - limit].addingTimeInterval(mailWindow)
            // Clamped: stored times are rounded to the millisecond.
            return min(Int(mailWindow), max(1, Int(freeing.timeIntervalSince(now).rounded(.up))))
        }
        let waits = [wait(deviceMails, limit: mailsPerDevice), wait(accountMails, limit: mailsPerAccount)].compactMap { $0 }
        return waits.max().map(MailQuota.retryAfter) ?? .allowed
    }

    public enum MailQuota: Sendable, Equatable {
        case allowed
        case retryAfter(seconds: Int)
    }

    static func base64URL(_ data: Data) -> String { Base64URL.encode(data) }
}

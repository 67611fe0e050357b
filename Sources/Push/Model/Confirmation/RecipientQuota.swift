public import Crypto
public import Foundation

/// A channel whose addresses are confirmed by a message the gateway sends to them: email now,
/// text messages later. Whoever asks, the recipient's own quota applies.
public enum ConfirmableChannel: String, Sendable, CaseIterable {
    case email
    case sms
}

/// The rules that keep the gateway from being used to message a stranger over and over, pure.
///
/// Confirmation messages are counted per **recipient**, across every account and every
/// instance: at most ``perRecipient`` in any ``window``, whoever asks. The recipient is known
/// only by a keyed hash (HMAC-SHA256 under a server secret) of its normalised address, so the
/// table that counts never holds an address. On top of that, the whole gateway sends at most a
/// configured number of confirmations per channel in any hour (``hourlyWindow``), so that many
/// accounts together can't spend the campus relay's reputation.
public enum RecipientQuota {
    /// Confirmation messages one recipient may be sent in any ``window``.
    public static let perRecipient = 3
    /// The sliding window of the recipient limit.
    public static let window: TimeInterval = 24 * 3600
    /// The sliding window of the gateway-wide cap.
    public static let hourlyWindow: TimeInterval = 3600
    /// The default gateway-wide cap on confirmation messages per channel per hour.
    public static let defaultHourlyCap = 300

    /// The address as the quota sees it: trimmed and lower-cased; for email, a `+tag` in the
    /// local part is dropped, since `ann+1@x` and `ann+2@x` reach the same mailbox. For text
    /// messages, only the digits and a leading `+` count.
    public static func normalized(_ address: String, channel: ConfirmableChannel) -> String {
        let trimmed = address.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        switch channel {
        case .email:
            guard let at = trimmed.lastIndex(of: "@") else { return trimmed }
            var local = trimmed[..<at]
            if let plus = local.firstIndex(of: "+"), plus != local.startIndex { local = local[..<plus] }
            return String(local) + trimmed[at...]
        case .sms:
            let digits = trimmed.filter(\.isASCII).filter { $0.isNumber }
            return (trimmed.hasPrefix("+") ? "+" : "") + digits
        }
    }

    /// The recipient's key: HMAC-SHA256 under `secret` of the channel and normalised address.
    public static func key(_ address: String, channel: ConfirmableChannel, secret: SymmetricKey) -> Data {
        let message = Data("\(channel.rawValue):\(normalized(address, channel: channel))".utf8)
        return Data(HMAC<SHA256>.authenticationCode(for: message, using: secret))
    }

    /// What may happen now.
    public enum Decision: Sendable, Equatable {
        case allowed
        /// This recipient had its ``perRecipient`` messages; another may go after this many seconds.
        case recipientLimit(retryAfterSeconds: Int)
        /// The gateway sent its hourly cap; another may go after this many seconds.
        case hourlyCap(retryAfterSeconds: Int)
    }

    /// Whether one more confirmation may go to a recipient that was sent messages at
    /// `recipientSends`, when the gateway sent `hourlySends` in the last hour, the oldest at
    /// `oldestHourlySend`.
    public static func decide(
        recipientSends: [Date], hourlySends: Int, oldestHourlySend: Date?, hourlyCap: Int, now: Date
    ) -> Decision {
        let recent = recipientSends.filter { $0 > now.addingTimeInterval(-window) }.sorted()
        if recent.count >= perRecipient {
            // The one that must leave the window for a slot to free.
            return .recipientLimit(retryAfterSeconds: seconds(until: recent[recent.count - perRecipient].addingTimeInterval(window), now: now, cap: window))
        }
        if hourlySends >= hourlyCap {
            let frees = (oldestHourlySend ?? now).addingTimeInterval(hourlyWindow)
            return .hourlyCap(retryAfterSeconds: seconds(until: frees, now: now, cap: hourlyWindow))
        }
        return .allowed
    }

    /// Whole seconds from `now` until `date`, at least 1 and at most `cap` (stored times are
    /// rounded to the millisecond).
    static func seconds(until date: Date, now: Date, cap: TimeInterval) -> Int {
        min(Int(cap), max(1, Int(date.timeIntervalSince(now).rounded(.up))))
    }
}

public import Foundation

/// The `Retry-After` response header (RFC 9110 §10.2.3), as push services and webhook
/// receivers send it with 429 and 503.
public enum RetryAfter {
    /// Longest wait honoured: a receiver cannot park a notification for longer than a day.
    public static let maximum: Duration = .seconds(86_400)

    /// The wait `value` asks for: delay-seconds (`120`) or an HTTP-date (IMF-fixdate, or the
    /// obsolete RFC 850 and asctime forms) relative to `now`; a date in the past is zero.
    /// Capped at ``maximum``; `nil` when absent or unreadable.
    public static func parse(_ value: String?, now: Date) -> Duration? {
        guard let text = value?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        if text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // Too many digits for an Int means "very long": the cap.
            guard let seconds = Int64(text) else { return maximum }
            return min(.seconds(seconds), maximum)
        }
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")) {
                let seconds = max(0, date.timeIntervalSince(now)).rounded(.up)
                return seconds >= 86_400 ? maximum : .seconds(Int64(seconds))
            }
        }
        return nil
    }
}

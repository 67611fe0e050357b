public import Foundation

/// Values no field expects, for the hostile-input sweeps of the compatibility protocols (SDSU
/// registration, QuickHAC, the Cal Poly gradebook): sent in every position, each must be
/// answered in the protocol's own form.
public enum HostileInput {
    public static let values: [String] = [
        "", " ", "-1", "0", "9223372036854775808", "-9223372036854775809", "1e400", "1.5", "0x10", "true", "null",
        "[]", "{}", "\u{0}", "a\u{0}b", "\u{7}\u{1b}[31m", "\r\nX-Injected: 1", "ünïcødé", "😀", "\u{202e}evil",
        "' OR '1'='1", "1; DROP TABLE classes; --", "%00", "%", "../../etc/passwd", String(repeating: "9", count: 5000),
    ]

    /// `value` percent-encoded whole, for a query or a form.
    public static func encoded(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }
}

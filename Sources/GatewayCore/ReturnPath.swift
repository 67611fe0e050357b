/// Where a browser goes back to at the end of a flow it started through the gateway (campus
/// sign-in, connecting Canvas): a path on the gateway, never another origin.
public enum ReturnPath {
    /// Where a sign-in without `returnTo` lands.
    public static let home = "/"
    /// The longest `returnTo` kept.
    public static let maximumLength = 512

    /// The path to return to, or nil when `raw` is not a plain path on this gateway: it must
    /// start with one `/` (not `//` or `/\`, which browsers read as another host), and hold no
    /// scheme, fragment, backslash or control character.
    public static func validate(_ raw: String?) -> String? {
        guard let raw, !raw.isEmpty else { return home }
        guard raw.utf8.count <= maximumLength, raw.hasPrefix("/"), !raw.hasPrefix("//"), !raw.hasPrefix("/\\"),
            !raw.contains("\\"), !raw.contains("#"),
            !raw.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else { return nil }
        return raw
    }
}

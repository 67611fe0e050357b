import Foundation

/// A short-lived cookie that binds a browser to a flow it started through the gateway (campus
/// sign-in, connecting a Canvas account): set when the flow leaves for the provider, read and
/// cleared when it comes back, so a callback in another browser does not finish it.
/// `HttpOnly`, `SameSite=Lax` (sent on the provider's top-level redirect back), `Secure` when
/// the gateway is served over https, and scoped to the flow's path.
public struct BindingCookie: Sendable {
    public let name: String
    public let path: String

    public init(name: String, path: String) {
        self.name = name
        self.path = path
    }

    /// The `Set-Cookie` value that stores `value` for `maxAge` seconds (0 with "" clears it).
    public func set(_ value: String, maxAge: Int, secure: Bool) -> String {
        "\(name)=\(value); Path=\(path); Max-Age=\(maxAge); HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "")
    }

    /// The `Set-Cookie` value that clears it.
    public func cleared(secure: Bool) -> String { set("", maxAge: 0, secure: secure) }

    /// Its value among a request's `Cookie` headers; nil when absent or empty.
    public func value(in headers: [String]) -> String? {
        for header in headers {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                    let value = parts[1].trimmingCharacters(in: .whitespaces)
                    return value.isEmpty ? nil : value
                }
            }
        }
        return nil
    }
}

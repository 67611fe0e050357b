import GatewayCore
import Hummingbird
import HTTPTypes

/// The headers every answer carries, so that no answer (an API's JSON, a compatibility route's
/// text, an upstream's bytes passed through, an error) can be read by a browser as a page of
/// the gateway's origin:
///
/// - `X-Content-Type-Options: nosniff`: the declared type is the type;
/// - `Content-Security-Policy: default-src 'none'; frame-ancestors 'none'; sandbox`: should a
///   browser render an answer anyway, it runs no script, loads nothing and is not framed;
/// - `Referrer-Policy: no-referrer`;
/// - with native TLS, `Strict-Transport-Security` (behind a proxy, the proxy sends it: see
///   `deploy/nginx.conf.example`).
///
/// A route that sets its own policy keeps it: the web app's pages carry a policy that lets
/// them load their own scripts and styles (``Web``), and a file download its sandbox.
struct SecurityHeaders: Sendable {
    /// The policy of every answer that is not one of the web app's pages.
    static let apiContentSecurityPolicy = "default-src 'none'; frame-ancestors 'none'; sandbox"
    /// Two years, the value browsers' preload lists ask for; subdomains are left to the operator.
    static let strictTransportSecurity = "max-age=63072000"

    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let strictTransport = HTTPField.Name("Strict-Transport-Security")!

    /// Whether the server terminates TLS itself.
    let nativeTLS: Bool

    /// The fields made once: a field's value is checked when it is made, and every answer
    /// carries these.
    static let nosniff = HTTPField(name: .xContentTypeOptions, value: "nosniff")
    static let apiPolicy = HTTPField(name: .contentSecurityPolicy, value: apiContentSecurityPolicy)
    static let noReferrer = HTTPField(name: referrerPolicy, value: "no-referrer")
    static let transportSecurity = HTTPField(name: strictTransport, value: strictTransportSecurity)

    func apply(to headers: inout HTTPFields) {
        if !headers.contains(.xContentTypeOptions) { headers.append(Self.nosniff) }
        if !headers.contains(.contentSecurityPolicy) { headers.append(Self.apiPolicy) }
        if !headers.contains(Self.referrerPolicy) { headers.append(Self.noReferrer) }
        if nativeTLS, !headers.contains(Self.strictTransport) { headers.append(Self.transportSecurity) }
    }
}

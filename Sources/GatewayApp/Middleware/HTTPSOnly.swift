import Foundation
import GatewayCore
import GatewayHTTP
import Hummingbird

/// With `--require-https`: plain-HTTP requests are refused, unless a trusted proxy (its socket
/// address in `trusted`) reports `X-Forwarded-Proto: https`. Only the anonymous health probes
/// (`/healthz`, `/readyz` without `deep`) pass over plain HTTP; `/readyz?deep=1` carries an
/// admin's token and does not. Behind TLS termination in this process every request is HTTPS
/// already and this admission is not installed.
struct HTTPSOnly: RequestAdmission {
    let trusted: [AddressRange]

    func admit(_ request: Request, context: inout GatewayContext) throws {
        let path = request.uri.path
        let probe = path == "/healthz" || (path == "/readyz" && request.uri.queryParameters["deep"] == nil)
        if probe { return }
        let forwarded = request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased()
        guard ForwardedFor.isTrusted(context.peerAddress, in: trusted), forwarded == "https" else {
            throw Problem(
                type: "https-required", title: "HTTPS required", status: .forbidden,
                detail: "This server accepts requests over HTTPS only."
            )
        }
    }
}

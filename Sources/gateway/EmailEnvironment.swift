import Foundation
import GatewayApp

/// The one place email is configured from the environment: `GATEWAY_SMTP_URL`,
/// `GATEWAY_SMTP_FROM`, `GATEWAY_SMTP_USERNAME`, `GATEWAY_SMTP_PASSWORD` or
/// `GATEWAY_SMTP_PASSWORD_FILE`, `GATEWAY_SMTP_CA_FILE`, and `GATEWAY_PUBLIC_URL`. Environment
/// only (a password on the command line would show in `ps`); errors name the variable, never
/// a value.
enum EmailEnvironment {
    static func apply(to config: inout GatewayConfiguration) throws {
        if let raw = Env.string("public-url") {
            guard let url = URL(string: raw), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http", url.host != nil,
                  url.query == nil, url.fragment == nil, url.user == nil else {
                throw GatewayCLIError("GATEWAY_PUBLIC_URL must be an absolute https URL such as https://gateway.example.edu")
            }
            config.publicURL = url
        }
        let parts = ["smtp-from", "smtp-username", "smtp-password", "smtp-password-file", "smtp-ca-file"]
        guard let rawURL = Env.string("smtp-url") else {
            if parts.contains(where: { Env.string($0) != nil }) { throw GatewayCLIError("the GATEWAY_SMTP_* settings need GATEWAY_SMTP_URL") }
            return
        }
        guard let url = URL(string: rawURL) else { throw GatewayCLIError("GATEWAY_SMTP_URL is not a URL") }
        guard let from = Env.string("smtp-from") else { throw GatewayCLIError("GATEWAY_SMTP_URL needs GATEWAY_SMTP_FROM (the sender address)") }
        var password = Env.string("smtp-password")
        if let file = Env.string("smtp-password-file") {
            guard password == nil else { throw GatewayCLIError("set GATEWAY_SMTP_PASSWORD or GATEWAY_SMTP_PASSWORD_FILE, not both") }
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw GatewayCLIError("GATEWAY_SMTP_PASSWORD_FILE: cannot read \(file)")
            }
            password = text.trimmingCharacters(in: .newlines)
        }
        let username = Env.string("smtp-username")
        if (username == nil) != (password == nil) {
            throw GatewayCLIError("GATEWAY_SMTP_USERNAME and a password (GATEWAY_SMTP_PASSWORD or _FILE) go together")
        }
        config.smtp = SMTPSettings(url: url, from: from, username: username, password: password, caFile: Env.string("smtp-ca-file"))
    }
}

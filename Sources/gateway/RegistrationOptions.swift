import ArgumentParser
import Foundation
import GatewayApp
import HTTPClient
import Registration

/// The registration flags of `serve`, each also a `GATEWAY_*` variable.
struct RegistrationOptions: ParsableArguments {
    @Option(name: .customLong("class-limit"), help: "Classes a student may register for per term (GATEWAY_CLASS_LIMIT). Default: 3") var classLimit: Int?
    @Option(name: .customLong("waitlist-policy"), help: "none, offer or auto (GATEWAY_WAITLIST_POLICY). Default: none") var waitlistPolicy: String?
    @Option(name: .customLong("offer-window-minutes"), help: "How long an offered seat is held (GATEWAY_OFFER_WINDOW_MINUTES). Default: 1440") var offerWindowMinutes: Int?
    @Option(name: .customLong("red-ids"), help: "Red id policy: any, suffix:6003,1234 or roster (GATEWAY_RED_IDS). Default: any") var redIDs: String?
    @Option(name: .customLong("registrar-webhook-secret-file"), help: "A file of whsec_ secrets, one per line, that the registrar signs seat-status deliveries with (GATEWAY_REGISTRAR_WEBHOOK_SECRET_FILE). Default: none, every delivery refused") var registrarWebhookSecretFile: String?
    @Option(name: .customLong("registrar-allowed-destinations"), help: "Private networks and host names registrar feed URLs may reach, e.g. 10.30.0.0/16,sis.campus.internal (GATEWAY_REGISTRAR_ALLOWED_DESTINATIONS). Default: public addresses only") var registrarAllowedDestinations: String?

    /// Applies flags, then environment variables, over the defaults.
    func apply(to config: inout GatewayConfiguration) throws {
        config.registration = try settings()
        if let file = registrarWebhookSecretFile ?? Env.string("registrar-webhook-secret-file") {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw GatewayCLIError("GATEWAY_REGISTRAR_WEBHOOK_SECRET_FILE: cannot read \(file)")
            }
            switch RegistrarFeedSettings.secrets(fromFile: text) {
            case .success(let secrets): config.registrarWebhookSecrets = secrets
            case .failure(let problem) where problem.line == 0:
                throw GatewayCLIError("GATEWAY_REGISTRAR_WEBHOOK_SECRET_FILE: \(file) holds no secret")
            case .failure(let problem):
                throw GatewayCLIError("GATEWAY_REGISTRAR_WEBHOOK_SECRET_FILE: line \(problem.line) of \(file) is not a whsec_ secret of at least 16 bytes")
            }
        }
        if let list = registrarAllowedDestinations ?? Env.string("registrar-allowed-destinations") {
            do {
                config.registrarAllowedDestinations = try DestinationAllowList(list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            } catch {
                throw GatewayCLIError("--registrar-allowed-destinations: \(error)")
            }
        }
    }

    /// The settings these flags and the environment describe.
    func settings() throws -> RegistrationSettings {
        try Self.settings(classLimit: classLimit, waitlistPolicy: waitlistPolicy, offerWindowMinutes: offerWindowMinutes, redIDs: redIDs)
    }

    static func settings(classLimit: Int?, waitlistPolicy: String?, offerWindowMinutes: Int?, redIDs: String?) throws -> RegistrationSettings {
        var settings = RegistrationSettings()
        if let limit = try classLimit ?? Env.int("class-limit") {
            guard (1...50).contains(limit) else { throw GatewayCLIError("--class-limit must be between 1 and 50") }
            settings.classLimit = limit
        }
        if let raw = waitlistPolicy ?? Env.string("waitlist-policy") {
            guard let policy = WaitlistPolicy(rawValue: raw.lowercased()) else {
                throw GatewayCLIError("--waitlist-policy must be none, offer or auto, not '\(raw)'")
            }
            settings.waitlistPolicy = policy
        }
        if let minutes = try offerWindowMinutes ?? Env.int("offer-window-minutes") {
            guard minutes >= 1 else { throw GatewayCLIError("--offer-window-minutes must be at least 1") }
            settings.offerWindow = Double(minutes) * 60
        }
        if let raw = redIDs ?? Env.string("red-ids") {
            guard let policy = RedIDPolicy(parsing: raw) else {
                throw GatewayCLIError("--red-ids must be any, roster or suffix:DIGITS[,DIGITS...], not '\(raw)'")
            }
            settings.redIDPolicy = policy
        }
        return settings
    }
}

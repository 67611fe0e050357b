import ArgumentParser
import GatewayApp
import Registration

/// The registration flags of `serve`, each also a `GATEWAY_*` variable.
struct RegistrationOptions: ParsableArguments {
    @Option(name: .customLong("class-limit"), help: "Classes a student may register for per term (GATEWAY_CLASS_LIMIT). Default: 3") var classLimit: Int?
    @Option(name: .customLong("waitlist-policy"), help: "none, offer or auto (GATEWAY_WAITLIST_POLICY). Default: none") var waitlistPolicy: String?
    @Option(name: .customLong("offer-window-minutes"), help: "How long an offered seat is held (GATEWAY_OFFER_WINDOW_MINUTES). Default: 1440") var offerWindowMinutes: Int?
    @Option(name: .customLong("red-ids"), help: "Red id policy: any, suffix:6003,1234 or roster (GATEWAY_RED_IDS). Default: any") var redIDs: String?

    /// Applies flags, then environment variables, over the defaults.
    func apply(to config: inout GatewayConfiguration) throws {
        config.registration = try settings()
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

import GatewayHTTP
import GatewayCore
import Hummingbird

/// `GET /v1/registration/settings`: the rules registration runs by, public and read-only, so
/// that clients (the schedule builder, signed in or not) can warn before a student hits them.
struct V1SettingsRoutes: Sendable {
    let service: RegistrationService

    struct Settings: Encodable, Sendable {
        /// Classes a student may register for per term.
        let classLimit: Int
        /// `none`, `offer` or `auto`: what a freed seat does for the waitlist.
        let waitlistPolicy: String
        /// How long an offered seat is held (`offer` policy).
        let offerWindowMinutes: Int
        /// Waitlists a student may be on at once.
        let maximumWaitlists: Int

        init(_ settings: RegistrationSettings) {
            classLimit = settings.classLimit
            waitlistPolicy = settings.waitlistPolicy.rawValue
            offerWindowMinutes = Int((settings.offerWindow / 60).rounded())
            maximumWaitlists = EnrollmentRules.maximumWaitlists
        }
    }

    func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let settings = Settings(service.settings)
        guarded.group(router, "v1/registration", access: .public).get("settings") { _, _ in
            try GatewayJSON.response(settings)
        }
    }
}

public import GatewayHTTP

extension GradebookError: ProblemConvertible {
    public var problem: Problem {
        switch self {
        case .sourceNotFound(let id):
            return Problem(type: "gradebook-source-not-found", title: "Gradebook source not found", status: .notFound, detail: "No gradebook source has id \(id).")
        case .invalid(let field, let message):
            return .validation(message, field: field)
        case .sourceExists(let id):
            return .conflict("gradebook-source-exists", title: "Gradebook source exists", detail: "A gradebook source with id \(id) exists; PUT replaces it.")
        case .upstreamTimeout(let id, let name):
            return Self.upstream("upstream-timeout", "Upstream gradebook timed out", .gatewayTimeout, "\(name) (source \(id)) did not answer in time.", id)
        case .upstreamFailed(let id, let name, let detail):
            return Self.upstream("upstream-failed", "Upstream gradebook failed", .badGateway, "\(name) (source \(id)) failed: \(detail).", id)
        case .upstreamUnauthorized(let id, let name), .upstreamTokenExpired(let id, let name):
            var problem = Self.upstream("upstream-unauthorized", "Upstream gradebook refused the credentials", .unauthorized, "\(name) (source \(id)) refused these credentials.", id)
            problem.headers[.wwwAuthenticate] = #"Basic realm="gradebook""#
            return problem
        case .permissionDenied(let id, let name):
            return Self.upstream("upstream-permission", "Not allowed by the gradebook", .forbidden, "\(name) (source \(id)) does not let these credentials see this record.", id)
        case .fileNotFound(let id, let name):
            return Self.upstream("gradebook-file-not-found", "Gradebook file not found", .notFound, "\(name) (source \(id)) has no such file.", id)
        case .sourceBusy(let id, let name, let seconds):
            var problem = Problem.unavailable(retryAfterSeconds: seconds, detail: "The gateway's limit on requests to \(name) (source \(id)) is reached; try again shortly.")
            problem.extensions["sourceId"] = .int(Int(id))
            return problem
        case .upstreamThrottled(let id, let name, let seconds):
            var problem = Problem.unavailable(
                retryAfterSeconds: seconds, detail: "\(name) (source \(id)) is throttling the gateway's requests; try again after the pause."
            )
            problem.type = "upstream-throttled"
            problem.title = "Upstream gradebook is throttling"
            problem.extensions["sourceId"] = .int(Int(id))
            return problem
        case .oauthNotConfigured(let reason):
            return .conflict("gradebook-oauth-not-configured", title: "Connecting with Canvas is not set up", detail: "\(reason).")
        case .notSpokenBySource(let id, let name, let kind):
            return .conflict(
                "gradebook-kind-mismatch", title: "Not spoken by this gradebook",
                detail: "\(name) (source \(id)) is a \(kind) source, which these Cal Poly routes do not speak; GET /v1/me/grades reads its grades."
            )
        case .signInThrottled(let id, let name, let seconds):
            var problem = Problem.tooManyRequests(
                retryAfterSeconds: seconds, detail: "Too many wrong passwords for \(name) (source \(id)) from here or for this username; try again later."
            )
            problem.extensions["sourceId"] = .int(Int(id))
            return problem
        case .credentialsRequired:
            var problem = Problem(
                type: "gradebook-credentials-required", title: "Gradebook credentials required", status: .unauthorized,
                detail: "Send the gradebook's username and password with HTTP Basic, or sign in (Bearer) with exactly one stored account for this source, or name one with ?account=."
            )
            problem.headers[.wwwAuthenticate] = #"Basic realm="gradebook""#
            return problem
        case .accountNotFound:
            return Problem(type: "gradebook-account-not-found", title: "Gradebook account not found", status: .notFound, detail: "You have no stored gradebook account with this id for this source.")
        case .accountExists:
            return .conflict("gradebook-account-exists", title: "Gradebook account exists", detail: "You already stored this account for this source.")
        case .accountLimit(let limit):
            return .conflict("gradebook-account-limit", title: "Too many gradebook accounts", detail: "You already store \(limit) gradebook accounts, the most allowed.")
        case .tooManyConnections(let seconds):
            return .tooManyRequests(retryAfterSeconds: seconds, detail: "Too many Canvas connections are waiting to be finished. Finish one, or try again in a few minutes.")
        case .signInRefused(let id, let name, let reason):
            switch reason {
            case .serviceNotAvailable:
                return Self.upstream("gradebook-service-not-available", "The gradebook's web service is not available", .unprocessableContent,
                    "\(name) (source \(id)) does not offer its web service to this account; its administrators must enable it for students.", id
                )
            case .passwordExpired:
                return Self.upstream("gradebook-password-expired", "The gradebook password has expired", .unprocessableContent,
                    "Your password at \(name) (source \(id)) has expired; change it there, then connect again.", id
                )
            case .siteMaintenance:
                var problem = Problem.unavailable(retryAfterSeconds: 600, detail: "\(name) (source \(id)) is in maintenance mode; connect again later.")
                problem.type = "upstream-maintenance"
                problem.title = "Upstream gradebook is in maintenance"
                problem.extensions["sourceId"] = .int(Int(id))
                return problem
            }
        case .gradesNotAllowed(let id, let name, let missing):
            return Self.upstream("gradebook-grades-not-allowed", "The gradebook does not let this token read grades", .unprocessableContent,
                "\(name) (source \(id)) does not let this token call \(missing.joined(separator: ", ")); its administrators must add them to the service.", id
            )
        case .vaultUnavailable:
            return Problem(type: "vault-unavailable", title: "Stored credentials unavailable", status: .serviceUnavailable, detail: "The stored password could not be opened; store the account again or ask an operator.")
        }
    }

    static func upstream(_ type: String, _ title: String, _ status: HTTPResponse.Status, _ detail: String, _ id: Int64) -> Problem {
        Problem(type: type, title: title, status: status, detail: detail, extensions: ["sourceId": .int(Int(id))])
    }
}

import Catalog
public import GatewayHTTP

extension RegistrationError: ProblemConvertible {
    /// The v1 problem for this refusal; each rule has its own stable type.
    public var problem: Problem {
        switch self {
        case .violation(let violation):
            switch violation {
            case .alreadyEnrolled:
                return .conflict("already-enrolled", title: "Already enrolled", detail: "You are already enrolled in this class.")
            case .classFull:
                return .conflict("class-full", title: "Class full", detail: "No seat is open in this class; you can join its waitlist.")
            case .classLimit(let limit):
                return Problem(
                    type: "class-limit", title: "Class limit reached", status: .conflict,
                    detail: "You are already enrolled in \(limit) classes this term, the limit.", extensions: ["limit": .int(limit)]
                )
            case .timeConflict(let classID):
                return Problem(
                    type: "time-conflict", title: "Time conflict", status: .conflict,
                    detail: "This class meets at the same time as class \(classID).",
                    extensions: ["conflictingClassId": .int(Int(classID))]
                )
            case .alreadyWaitlisted:
                return .conflict("already-waitlisted", title: "Already waitlisted", detail: "You are already on this class's waitlist.")
            case .notFull:
                return .conflict("not-full", title: "Class not full", detail: "Seats are open: register instead of waitlisting.")
            case .notEnrolled:
                return Problem(type: "not-enrolled", title: "Not enrolled", status: .notFound, detail: "You are not enrolled in this class.")
            case .notWaitlisted:
                return Problem(type: "not-waitlisted", title: "Not waitlisted", status: .notFound, detail: "You are not on this class's waitlist.")
            case .waitlistLimit(let limit):
                return Problem(
                    type: "waitlist-limit", title: "Waitlist limit reached", status: .conflict,
                    detail: "You are already on \(limit) waitlists, the limit.", extensions: ["limit": .int(limit)]
                )
            case .registrationAtRegistrar:
                return .conflict(
                    "registration-at-registrar", title: "Registration is at the registrar",
                    detail: "This class's term takes its seats from the campus registrar: register there. The gateway shows its seats and alerts you when one opens."
                )
            case .noOffer:
                return Problem(type: "no-offer", title: "No seat offered", status: .notFound, detail: "No open seat offer for you in this class (it may have expired).")
            }
        case .ineligible(let reasons, let timeZone):
            return Self.ineligibleProblem(reasons, timeZone: timeZone)
        case .eligibilityLimit(let reason):
            return .validation("Not saved: \(reason).")
        case .unknownClass(let id):
            return Problem(type: "class-not-found", title: "Class not found", status: .notFound, detail: "No class has id \(id).")
        case .profileRequired:
            return .conflict(
                "student-profile-required", title: "Student profile required",
                detail: "Create your student profile first: PUT /v1/me/registration/profile."
            )
        case .invalidCredentials: return .invalidCredentials()
        case .throttled(let seconds): return .tooManyRequests(retryAfterSeconds: seconds, detail: "Too many failed sign-ins. Try again later.")
        case .signUpThrottled(let seconds):
            return .tooManyRequests(retryAfterSeconds: seconds, detail: "Too many sign-ups from this address. Try again later.")
        case .busy(let seconds):
            return .unavailable(retryAfterSeconds: seconds, detail: "Too many sign-ins are being processed; try again shortly.")
        case .invalidRedID: return .validation("The red id must be nine digits accepted by the red id policy.", field: "redId")
        case .redIDInUse: return .conflict("red-id-in-use", title: "Red id in use", detail: "Another student has this red id.")
        case .unknownAccount(let id):
            return .notFound("No account \(id).")
        case .redIDBindingNeedsProof:
            return Problem(
                type: "red-id-needs-proof", title: "Red id needs proof", status: .forbidden,
                detail: "Red ids on the roster are bound by signing up with them (SDSU addstudent) or by an admin."
            )
        case .passwordTooShort, .passwordTooFewDistinct, .passwordTooLong:
            return .validation("The password must have at least 8 characters, 7 of them different.", field: "password")
        case .invalidEmail: return .validation("The email address must contain '@'.", field: "email")
        case .invalidName(let field):
            return .validation("The \(field == "firstname" ? "first" : "last") name must be 1 to 100 characters.", field: field == "firstname" ? "firstName" : "lastName")
        case .seatsBelowEnrollment(let taken):
            return .conflict("seats-below-enrollment", title: "Too few seats", detail: "\(taken) seats are taken or held; the class cannot have fewer.")
        case .invalidClass(let reason):
            return .validation("The class was not saved: \(reason).")
        case .registrarSignature(let reason):
            return Problem(
                type: "registrar-signature", title: "Registrar delivery not signed", status: .unauthorized,
                detail: "The delivery was refused: \(reason). Sign it as Standard Webhooks do, with a secret of GATEWAY_REGISTRAR_WEBHOOK_SECRET_FILE."
            )
        case .invalidRegistrarFeed(let pointer, let reason):
            let field = pointer.isEmpty ? "body" : pointer
            return Problem(
                type: "validation-failed", title: "A field is invalid", status: .unprocessableContent, detail: "\(field) \(reason).",
                extensions: [
                    "invalidFields": .array([.string(field)]),
                    "errors": .array([.object(["pointer": .string(pointer), "detail": .string(reason)])]),
                ]
            )
        case .termNotFound(let id):
            return Problem(type: "term-not-found", title: "Term not found", status: .unprocessableContent, detail: "No term has id '\(id)'.")
        case .termNotAtRegistrar(let id):
            return .conflict(
                "term-not-at-registrar", title: "Term's seats are the gateway's",
                detail: "Term '\(id)' takes its seats from the gateway; set its seatsFrom to \"registrar\" to mirror the registrar's."
            )
        case .classHasStudents(let count):
            return Problem(
                type: "class-has-students", title: "Class has students", status: .conflict,
                detail: "\(count) students are enrolled, waitlisted or hold an offer; add ?dropStudents=true to delete it anyway.",
                extensions: ["students": .int(count)]
            )
        }
    }
}

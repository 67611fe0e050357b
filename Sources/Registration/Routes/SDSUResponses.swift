import Catalog
import GatewayHTTP
import Foundation
import GatewayCore
import Hummingbird

/// The SDSU protocol's answers: `{"ok": ...}`, `{"error": ...}`, the 400 JSON body for
/// malformed parameters, and the HTML 404 page for unknown URLs.
enum SDSUResponses {
    static let studentAdded = "Student Added"
    static let courseAdded = "Course added"
    static let courseDropped = "Course dropped"
    static let studentReset = "Student reset"

    static func ok(_ message: String) throws -> Response {
        answer(message, under: "ok")
    }

    static func error(_ message: String) throws -> Response {
        answer(message, under: "error")
    }

    /// `{"ok":"..."}` or `{"error":"..."}`, written by hand (``SDSUJSON``): every registration
    /// answers one, and `JSONEncoder` cost more than the rest of the answer.
    static func answer(_ message: String, under key: String) -> Response {
        var text = ""
        text.reserveCapacity(message.utf8.count + 16)
        SDSUJSON.appendObject([(key, .string(message))], to: &text)
        return json(text: text)
    }

    /// The protocol's wording for each refusal; strings the seed shows are reproduced exactly.
    static func message(for error: RegistrationError) -> String {
        switch error {
        case .violation(let violation):
            switch violation {
            case .alreadyEnrolled: "Student already in course"
            case .classFull: "Course is full"
            case .classLimit(let limit): "Student already has \(limit) courses, the limit"
            case .timeConflict(let classID): "Time conflict with course \(classID)"
            case .alreadyWaitlisted: "Student already on waitlist"
            case .notFull: "Course is not full, register instead"
            case .notEnrolled: "Student not in course"
            case .notWaitlisted: "Student not on waitlist"
            case .noOffer: "No seat offered"
            case .waitlistLimit(let limit): "Student already on \(limit) waitlists, the limit"
            case .registrationAtRegistrar: "Registration for this term is at the registrar"
            }
        case .ineligible(let reasons, let timeZone): RegistrationError.sdsuMessage(reasons, timeZone: timeZone)
        case .eligibilityLimit(let reason): reason
        case .unknownClass: "No such course"
        case .profileRequired: "Student profile required"
        case .invalidCredentials: "Invalid Red Id or password"
        case .throttled(let seconds): "Too many failed attempts, try again in \(seconds) seconds"
        case .busy(let seconds): "Server busy, try again in \(seconds) seconds"
        case .signUpThrottled(let seconds): "Too many sign-ups from this address, try again in \(seconds) seconds"
        case .invalidRedID: "Invalid Red Id"
        case .redIDInUse: "Red Id already in use"
        case .redIDBindingNeedsProof: "Red Id must be registered with addstudent"
        case .unknownAccount: "No such student"
        case .passwordTooShort: "Password too short"
        case .passwordTooFewDistinct: "Password needs 7 different characters"
        case .passwordTooLong: "Password too long"
        case .invalidEmail: "Invalid email no @"
        case .invalidName(let field): field == "firstname" ? "Invalid first name" : "Invalid last name"
        case .seatsBelowEnrollment: "Seats below enrollment"
        case .invalidClass(let reason): "Invalid course: \(reason)"
        case .classHasStudents: "Course has students"
        case .registrarSignature, .invalidRegistrarFeed, .termNotFound, .termNotAtRegistrar: "Request refused"
        }
    }

    static let notFoundPage = """
        <!DOCTYPE html>
        <html><head><title>404 Not Found</title></head>
        <body><h1>Not Found</h1><p>The requested URL was not found on this server.</p></body></html>

        """

    /// Renders errors under `/registration/` the way the SDSU server did: unknown URLs get an
    /// HTML 404, malformed parameters a 400 with a JSON body, overload a JSON 503, and plain
    /// HTTP refused by `--require-https` a JSON 403. Anything
    /// else falls back to the shared problem handling (which logs it).
    static let errorRenderer = ErrorRenderer(pathPrefix: "/registration/") { error, _ in
        switch error {
        case let bad as SDSUBadRequest:
            return SDSUResponses.json(["error": bad.message], status: .badRequest)
        case let http as HTTPError where http.status == .notFound || http.status == .methodNotAllowed:
            return SDSUResponses.html(status: .notFound)
        case let http as HTTPError where http.status == .badRequest || http.status == .contentTooLarge:
            return SDSUResponses.json(["error": http.body ?? http.status.reasonPhrase], status: http.status)
        case let problem as Problem:
            switch problem.status {
            case .notFound: return SDSUResponses.html(status: .notFound)
            case .badRequest, .contentTooLarge, .forbidden:
                return SDSUResponses.json(["error": problem.detail ?? problem.title], status: problem.status)
            case .serviceUnavailable, .tooManyRequests:
                // The protocol knows 200, 400, 404 and 500: a busy server is an `error` answer
                // the client shows, with `Retry-After` for those that look.
                var response = SDSUResponses.answer(problem.detail ?? problem.title, under: "error")
                if let retry = problem.headers[.retryAfter] { response.headers[.retryAfter] = retry }
                return response
            case .internalServerError:
                // A failure of ours (logged with the request id before it gets here) is an
                // `error` answer the client shows, as the protocol's clients expect of every
                // refusal, never a problem document they can't read.
                return SDSUResponses.answer("Something went wrong on our side; please try again.", under: "error")
            default: return nil
            }
        default:
            return nil
        }
    }

    static func json(_ body: [String: String], status: HTTPResponse.Status) -> Response {
        (try? GatewayJSON.response(body, status: status))
            ?? Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: "{}")))
    }

    /// A 200 response with JSON text written by hand (``SDSUJSON``).
    static func json(text: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: text))
        )
    }

    static func html(status: HTTPResponse.Status) -> Response {
        Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: notFoundPage))
        )
    }
}

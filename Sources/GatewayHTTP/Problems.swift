import Foundation
import HTTPTypes
import Hummingbird

/// The catalogue of problem types shared by every module. Feature modules add their own
/// (for example `class-full`) with the same constructor.
extension Problem {
    public static func badRequest(_ detail: String, invalidFields: [String] = []) -> Problem {
        Problem(
            type: "bad-request", title: "The request is malformed", status: .badRequest, detail: detail,
            extensions: invalidFields.isEmpty ? [:] : ["invalidFields": .array(invalidFields.map(ProblemValue.string))]
        )
    }

    /// 422 naming the field: `invalidFields` (its path, `holidays[1].to`) and, for forms,
    /// `errors: [{"pointer": "/holidays/1/to", "detail": ...}]` (an RFC 9457 extension: one
    /// message per field, its JSON Pointer into the request body).
    public static func validation(_ detail: String, field: String? = nil) -> Problem {
        Problem(
            type: "validation-failed", title: "A field is invalid", status: .unprocessableContent, detail: detail,
            extensions: field.map { field in
                [
                    "invalidFields": .array([.string(field)]),
                    "errors": .array([.object(["pointer": .string(jsonPointer(field)), "detail": .string(detail)])]),
                ]
            } ?? [:]
        )
    }

    /// A JSON Pointer (RFC 6901) for a field path as the API names it: `holidays[1].to` is
    /// `/holidays/1/to`, `quietHours.start` is `/quietHours/start`; a pointer stays as it is.
    public static func jsonPointer(_ field: String) -> String {
        if field.hasPrefix("/") { return field }
        var pointer = ""
        var token = ""
        func flush() {
            guard !token.isEmpty else { return }
            pointer += "/" + token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
            token = ""
        }
        for character in field {
            switch character {
            case ".", "[": flush()
            case "]": flush()
            default: token.append(character)
            }
        }
        flush()
        return pointer
    }

    public static func unauthenticated(_ detail: String = "Authentication is required.") -> Problem {
        Problem(
            type: "unauthenticated", title: "Authentication required", status: .unauthorized, detail: detail,
            headers: [.wwwAuthenticate: #"Bearer realm="campus-gateway""#]
        )
    }

    public static func forbidden(_ detail: String = "Your role does not allow this.") -> Problem {
        Problem(type: "forbidden", title: "Forbidden", status: .forbidden, detail: detail)
    }

    public static func invalidCredentials() -> Problem {
        Problem(
            type: "invalid-credentials", title: "Invalid credentials", status: .forbidden,
            detail: "The username or password is wrong."
        )
    }

    public static func notFound(_ detail: String = "No resource lives at this address.") -> Problem {
        Problem(type: "not-found", title: "Not found", status: .notFound, detail: detail)
    }

    public static func methodNotAllowed() -> Problem {
        Problem(type: "method-not-allowed", title: "Method not allowed", status: .methodNotAllowed)
    }

    public static func conflict(_ type: String, title: String, detail: String) -> Problem {
        Problem(type: type, title: title, status: .conflict, detail: detail)
    }

    public static func payloadTooLarge(limit: Int) -> Problem {
        Problem(
            type: "payload-too-large", title: "Request body too large", status: .contentTooLarge,
            detail: "Request bodies are limited to \(limit) bytes.", extensions: ["limitBytes": .int(limit)]
        )
    }

    public static func tooManyRequests(retryAfterSeconds: Int, detail: String) -> Problem {
        Problem(
            type: "too-many-requests", title: "Too many requests", status: .tooManyRequests, detail: detail,
            extensions: ["retryAfterSeconds": .int(retryAfterSeconds)],
            headers: [.retryAfter: String(retryAfterSeconds)]
        )
    }

    public static func unavailable(retryAfterSeconds: Int, detail: String) -> Problem {
        Problem(
            type: "service-unavailable", title: "Service unavailable", status: .serviceUnavailable, detail: detail,
            extensions: ["retryAfterSeconds": .int(retryAfterSeconds)],
            headers: [.retryAfter: String(retryAfterSeconds)]
        )
    }

    public static func internalError() -> Problem {
        Problem(
            type: "internal-error", title: "Internal server error", status: .internalServerError,
            detail: "Something went wrong on our side. The request id identifies it in the logs."
        )
    }
}

public import GatewayHTTP

extension PushError: ProblemConvertible {
    public var problem: Problem {
        switch self {
        case .invalid(let field, let message): .validation(message, field: field)
        case .deviceNotFound: Problem(type: "device-not-found", title: "Device not found", status: .notFound, detail: "You have no device with this id.")
        case .seatAlertNotFound: Problem(type: "seat-alert-not-found", title: "Seat alert not found", status: .notFound, detail: "You have no seat alert with this id.")
        case .classNotFound(let detail): Problem(type: "class-not-found", title: "Class not found", status: .notFound, detail: detail)
        case .gradebookAccountNotFound:
            Problem(type: "gradebook-account-not-found", title: "Gradebook account not found", status: .notFound, detail: "You have no stored gradebook account with this id.")
        case .deviceLimit(let limit): .conflict("device-limit", title: "Too many devices", detail: "You already registered \(limit) devices, the most allowed; remove one first.")
        case .unconfirmedEmailLimit(let limit):
            .conflict("unconfirmed-email-limit", title: "Too many unconfirmed addresses", detail: "You have \(limit) email addresses waiting for confirmation, the most allowed; confirm or remove one first.")
        case .emailAlreadyRegistered:
            .conflict("email-already-registered", title: "Address already registered", detail: "You already registered this email address.")
        case .unconfirmedPhoneLimit(let limit):
            .conflict("unconfirmed-phone-limit", title: "Too many unconfirmed numbers", detail: "You have \(limit) phone numbers waiting for confirmation, the most allowed; confirm or remove one first.")
        case .phoneAlreadyRegistered:
            .conflict("phone-already-registered", title: "Number already registered", detail: "You already registered this phone number.")
        case .smsInboundRefused:
            Problem(type: "sms-signature-invalid", title: "Forbidden", status: .forbidden, detail: "The request does not carry a valid X-Twilio-Signature.")
        case .smsInboundThrottled(let seconds):
            Problem(
                type: "rate-limited", title: "Too many requests", status: .tooManyRequests, detail: "Too many inbound messages from this network. Try again later.",
                extensions: ["retryAfterSeconds": .int(seconds)], headers: [.retryAfter: String(seconds)]
            )
        case .nothingToConfirm:
            .conflict("nothing-to-confirm", title: "Nothing to confirm", detail: "This device is not an email address or phone number waiting for confirmation.")
        case .confirmationMailLimit(let seconds):
            Problem(
                type: "confirmation-mail-limit", title: "Too many confirmation mails", status: .tooManyRequests,
                detail: "Too many confirmation mails were sent lately. Try again later.",
                extensions: ["retryAfterSeconds": .int(seconds)], headers: [.retryAfter: String(seconds)]
            )
        case .confirmationsPaused(let seconds):
            Problem(
                type: "confirmation-mail-limit", title: "Too many confirmation mails", status: .tooManyRequests,
                detail: "The gateway sent as many confirmation messages as it sends in an hour. Try again later.",
                extensions: ["retryAfterSeconds": .int(seconds)], headers: [.retryAfter: String(seconds)]
            )
        case .confirmationNetworkLimit(let seconds):
            Problem(
                type: "confirmation-mail-limit", title: "Too many confirmation texts", status: .tooManyRequests,
                detail: "Too many confirmation texts were asked for from this network lately. Try again later.",
                extensions: ["retryAfterSeconds": .int(seconds)], headers: [.retryAfter: String(seconds)]
            )
        case .confirmationCodeWrong(let left):
            Problem(
                type: "confirmation-code-wrong", title: "Wrong confirmation code", status: .unprocessableContent,
                detail: left > 0 ? "The code is wrong; \(left) tries left." : "The code is wrong, and that was the last try: ask for a new mail.",
                extensions: ["invalidFields": .array([.string("code")]), "attemptsLeft": .int(left)]
            )
        case .confirmationExpired:
            Problem(type: "confirmation-expired", title: "Confirmation expired", status: .gone, detail: "This confirmation expired or had too many wrong codes; ask for a new mail.")
        case .emailLinkInvalid:
            Problem(type: "email-link-invalid", title: "Link not valid", status: .notFound, detail: "This link is unknown or expired.")
        case .testNotificationLimit(let seconds):
            Problem(
                type: "test-notification-limit", title: "Too many test notifications", status: .tooManyRequests,
                detail: "Too many test notifications were asked for lately (\(TestNotificationQuota.perDevice) per device in \(Int(TestNotificationQuota.deviceWindow / 60)) minutes, \(TestNotificationQuota.perAccount) per student in an hour). Try again later.",
                extensions: ["retryAfterSeconds": .int(seconds)], headers: [.retryAfter: String(seconds)]
            )
        }
    }
}

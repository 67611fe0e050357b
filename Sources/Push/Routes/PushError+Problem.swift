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
        }
    }
}

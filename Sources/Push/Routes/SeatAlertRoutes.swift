import Contracts
import Foundation
import GatewayCore
import GatewayHTTP
import Hummingbird

/// `/v1/me/seat-alerts`: a student's watches on classes and courses.
extension PushRoutes {
    /// What a student sends to watch a class (`classId`) or a course in a term (`term`,
    /// `subject`, `courseNumber`: any section).
    struct SeatAlertBody: Decodable {
        let classId: Int64?
        let term: String?
        let subject: String?
        let courseNumber: String?
        let rearm: Bool?
        let notifyClosed: Bool?

        /// The watch's target, or a 422 naming the field.
        func target() throws -> SeatAlert.Target {
            let course = [term, subject, courseNumber]
            if let classId {
                guard course.allSatisfy({ $0 == nil }) else {
                    throw PushError.invalid(field: "classId", message: "Give either classId or term, subject and courseNumber, not both.")
                }
                guard classId > 0 else { throw PushError.invalid(field: "classId", message: "classId must be a class id.") }
                return .classID(classId)
            }
            guard let term, let subject, let courseNumber else {
                // Nothing named at all: the class id is what is missing; else the course's missing part.
                let given = course.contains { $0 != nil }
                let missing = given ? [("term", term), ("subject", subject), ("courseNumber", courseNumber)].first { $0.1 == nil }?.0 ?? "classId" : "classId"
                throw PushError.invalid(field: missing, message: "Give classId, or term, subject and courseNumber to watch any section of a course.")
            }
            for (field, value, limit) in [("term", term, 32), ("subject", subject, 16), ("courseNumber", courseNumber, 16)] {
                let trimmed = value.trimmingCharacters(in: .whitespaces)
                guard !trimmed.isEmpty, trimmed.count <= limit, trimmed.unicodeScalars.allSatisfy({ !CharacterSet.controlCharacters.contains($0) }) else {
                    throw PushError.invalid(field: field, message: "\(field) must be 1 to \(limit) characters.")
                }
            }
            return .course(CourseKey(
                term: term.trimmingCharacters(in: .whitespaces), subject: subject.trimmingCharacters(in: .whitespaces),
                courseNumber: courseNumber.trimmingCharacters(in: .whitespaces)
            ))
        }
    }

    func registerSeatAlerts(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let seatAlerts = self.seatAlerts
        let alerts = guarded.group(router, "v1/me/seat-alerts", access: .authenticated)
        alerts.get { _, context in
            let identity = try context.requireIdentity()
            var items: [PushViews.SeatAlert] = []
            for alert in try await seatAlerts.alerts(accountID: identity.accountID) {
                items.append(PushViews.SeatAlert(alert, watching: try await seatAlerts.describe(alert)))
            }
            return try GatewayJSON.response(["items": items])
        }
        alerts.post { request, context in
            let identity = try context.requireIdentity()
            let body = try await GatewayJSON.decode(SeatAlertBody.self, from: request, context: context)
            let (alert, created) = try await seatAlerts.watch(
                accountID: identity.accountID, target: try body.target(), rearm: body.rearm ?? false, notifyClosed: body.notifyClosed ?? false
            )
            return try GatewayJSON.response(
                PushViews.SeatAlert(alert, watching: try await seatAlerts.describe(alert)), status: created ? .created : .ok,
                headers: [.location: "/v1/me/seat-alerts/\(alert.id)"]
            )
        }
        alerts.delete(":alertId") { _, context in
            let identity = try context.requireIdentity()
            guard let raw = context.parameters.get("alertId"), let id = Int64(raw) else { throw PushError.seatAlertNotFound }
            try await seatAlerts.remove(id: id, accountID: identity.accountID)
            return Response(status: .noContent)
        }
    }
}

extension PushViews {
    struct SeatAlert: Encodable {
        let id: Int64
        /// `class` or `course`.
        let kind: String
        let classId: Int64?
        let term: String?
        let subject: String?
        let courseNumber: String?
        /// What the alert watches, as a student reads it: `CS 540-02 (class 7036)`.
        let watching: String
        let rearm: Bool
        let notifyClosed: Bool
        let armed: Bool
        let createdAt: Date
        let lastNotifiedAt: Date?

        init(_ alert: Push.SeatAlert, watching: String) {
            id = alert.id
            switch alert.target {
            case .classID(let classID):
                (kind, classId, term, subject, courseNumber) = ("class", classID, nil, nil, nil)
            case .course(let course):
                (kind, classId, term, subject, courseNumber) = ("course", nil, course.term, course.subject, course.courseNumber)
            }
            self.watching = watching
            rearm = alert.rearm
            notifyClosed = alert.notifyClosed
            armed = alert.armed
            createdAt = alert.createdAt
            lastNotifiedAt = alert.lastNotifiedAt
        }
    }
}

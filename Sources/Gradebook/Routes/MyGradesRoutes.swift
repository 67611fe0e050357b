import Foundation
import GatewayCore
import GatewayHTTP
import Hummingbird

/// `GET /v1/me/grades`: the signed-in student's grades across all their stored accounts,
/// normalised whatever the source. `?refresh=1` asks every source again.
struct MyGradesRoutes: Sendable {
    let service: MyGradesService

    struct Answer: Encodable {
        let items: [Item]
    }

    /// One item as the contract gives it: unknown numbers and dates are JSON `null`, never left out.
    struct Item: Encodable {
        let item: MyGradesService.Item

        init(_ item: MyGradesService.Item) { self.item = item }

        func encode(to encoder: any Encoder) throws {
            try NullKeepingObject([
                ("accountId", item.accountID), ("sourceId", item.sourceID), ("status", item.status.rawValue), ("fetchedAt", item.fetchedAt),
                ("courses", item.courses.map(Self.course)),
            ]).encode(to: encoder)
        }

        static func course(_ course: CourseGrades) -> NullKeepingObject {
            NullKeepingObject([
                ("id", course.id), ("name", course.name), ("code", course.code), ("currentScore", course.currentScore),
                ("currentGrade", course.currentGrade), ("gradesWithheld", course.gradesWithheld?.rawValue),
                ("assignments", course.assignments.map(assignment)),
            ])
        }

        static func assignment(_ grade: AssignmentGrade) -> NullKeepingObject {
            NullKeepingObject([
                ("id", grade.id), ("name", grade.name), ("score", grade.score), ("pointsPossible", grade.pointsPossible),
                ("dueAt", grade.dueAt), ("gradedAt", grade.gradedAt), ("state", grade.state.rawValue), ("feedback", grade.feedback),
            ])
        }
    }

    /// A JSON object whose fields keep their order and write `null` for a value that is nil
    /// (synthesized `Encodable` leaves such a field out).
    struct NullKeepingObject: Encodable {
        let fields: [(name: String, value: (any Encodable)?)]

        init(_ fields: [(String, (any Encodable)?)]) { self.fields = fields.map { (name: $0.0, value: $0.1) } }

        struct Key: CodingKey {
            let stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            for (name, value) in fields {
                if let value { try container.encode(value, forKey: Key(stringValue: name)) } else { try container.encodeNil(forKey: Key(stringValue: name)) }
            }
        }
    }

    func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let service = self.service
        let group = guarded.group(router, "v1/me/grades", access: .authenticated)
        group.get { request, context in
            let identity = try context.requireIdentity()
            let refresh: Bool
            do {
                refresh = try queryFlag(request.uri.queryParameters.get("refresh"), name: "refresh")
            } catch {
                throw GradebookError.invalid(field: "refresh", message: "refresh is true or false (1 or 0).")
            }
            let items = try await service.grades(of: identity.accountID, refresh: refresh)
            return try GatewayJSON.response(Answer(items: items.map(Item.init)))
        }
    }
}

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

    struct Item: Encodable {
        let accountId: Int64
        let sourceId: Int64
        let status: String
        let fetchedAt: Date?
        let courses: [Course]

        init(_ item: MyGradesService.Item) {
            accountId = item.accountID
            sourceId = item.sourceID
            status = item.status.rawValue
            fetchedAt = item.fetchedAt
            courses = item.courses.map(Course.init)
        }

        // Unknown numbers and dates are JSON null, never left out.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(accountId, forKey: .accountId)
            try container.encode(sourceId, forKey: .sourceId)
            try container.encode(status, forKey: .status)
            try container.encode(fetchedAt, forKey: .fetchedAt)
            try container.encode(courses, forKey: .courses)
        }

        enum CodingKeys: String, CodingKey { case accountId, sourceId, status, fetchedAt, courses }
    }

    struct Course: Encodable {
        let grades: CourseGrades

        init(_ grades: CourseGrades) { self.grades = grades }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(grades.id, forKey: .id)
            try container.encode(grades.name, forKey: .name)
            try container.encode(grades.code, forKey: .code)
            try container.encode(grades.currentScore, forKey: .currentScore)
            try container.encode(grades.currentGrade, forKey: .currentGrade)
            try container.encode(grades.assignments.map(Assignment.init), forKey: .assignments)
        }

        enum CodingKeys: String, CodingKey { case id, name, code, currentScore, currentGrade, assignments }
    }

    struct Assignment: Encodable {
        let grade: AssignmentGrade

        init(_ grade: AssignmentGrade) { self.grade = grade }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(grade.id, forKey: .id)
            try container.encode(grade.name, forKey: .name)
            try container.encode(grade.score, forKey: .score)
            try container.encode(grade.pointsPossible, forKey: .pointsPossible)
            try container.encode(grade.dueAt, forKey: .dueAt)
            try container.encode(grade.gradedAt, forKey: .gradedAt)
            try container.encode(grade.state.rawValue, forKey: .state)
        }

        enum CodingKeys: String, CodingKey { case id, name, score, pointsPossible, dueAt, gradedAt, state }
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

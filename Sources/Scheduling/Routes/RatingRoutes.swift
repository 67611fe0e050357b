import NIOFoundationEssentialsCompat
import GatewayCore
import Foundation
import GatewayCore
import GatewayHTTP
import Hummingbird

/// `/v1/admin/scheduling/ratings`: admins import course GPAs and instructor ratings (JSON or
/// CSV, chosen by Content-Type or `?format=`) and see how many are known.
struct RatingRoutes: Sendable {
    let service: RatingService

    func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let service = self.service
        let group = guarded.group(router, "v1/admin/scheduling", access: .role(.admin))
        group.get("ratings") { _, _ in
            let counts = try await service.counts()
            return try GatewayJSON.response(["courses": counts.courses, "instructors": counts.instructors])
        }
        group.post("ratings") { request, context in
            let contentType = request.headers[.contentType]?.lowercased() ?? ""
            let format = request.uri.queryParameters.get("format")?.lowercased()
                ?? (contentType.contains("csv") ? "csv" : "json")
            let replace = try queryFlag(request.uri.queryParameters.get("replace"), name: "replace")
            let buffer = try await request.body.collect(upTo: context.maxUploadSize)
            let summary = try await service.importRatings(Data(buffer: buffer), format: format, replace: replace)
            return try GatewayJSON.response(RatingImportView(summary))
        }
    }

    struct RatingImportView: Encodable {
        struct Rejected: Encodable {
            let row: String
            let reason: String
        }

        let courses: Int
        let instructors: Int
        let rejected: [Rejected]

        init(_ summary: RatingService.ImportSummary) {
            courses = summary.courses
            instructors = summary.instructors
            rejected = summary.rejected.map { Rejected(row: $0.row, reason: $0.reason) }
        }
    }
}

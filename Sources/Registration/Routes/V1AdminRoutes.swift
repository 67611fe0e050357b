import NIOFoundationEssentialsCompat
import GatewayHTTP
import Foundation
import GatewayCore
import Hummingbird
import Catalog

/// Catalog management for admins: imports, classes (create, replace, seats, delete), class
/// rosters and the red id roster.
struct V1AdminRoutes: Sendable {
    let service: RegistrationService

    struct SeatsRequest: Decodable { let seats: Int }
    struct RosterRequest: Decodable { let redIds: [String] }
    struct Deleted: Encodable {
        let classId: Int64
        let droppedAccountIds: [Int64]
    }

    func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let service = self.service
        let group = guarded.group(router, "v1/admin/registration", access: .role(.admin))

        group.post("imports") { request, context in
            let format = request.uri.queryParameters["format"].map(String.init) ?? "native"
            let strict = try queryFlag(request.uri.queryParameters.get("strict"), name: "strict")
            let buffer: ByteBuffer
            do {
                buffer = try await request.body.collect(upTo: context.maxUploadSize)
            } catch let error as HTTPError where error.status == .contentTooLarge {
                throw Problem.payloadTooLarge(limit: context.maxUploadSize)
            }
            guard buffer.readableBytes > 0 else { throw Problem.badRequest("Send the catalog file as the request body.") }
            let data = Data(buffer: buffer)
            let document: CatalogDocument
            do {
                switch format {
                case "native": document = try NativeCatalogFormat.parse(data)
                case "umdio": document = try UMDIOCatalogFormat.parse(data)
                default: throw Problem.badRequest("format must be native or umdio.", invalidFields: ["format"])
                }
            } catch let error as CatalogFileError {
                throw Problem.badRequest(error.description)
            }
            let admin = try context.requireIdentity().accountID
            let report = try await V1EnrollmentRoutes.run { try await service.admin.importCatalog(document, strict: strict, by: admin) }
            return try GatewayJSON.response(report, status: report.applied ? .ok : .unprocessableContent)
        }
        group.get("classes/:classId/roster") { _, context in
            let classID = try V1CatalogRoutes.classID(context)
            let roster = try await V1EnrollmentRoutes.run { try await service.admin.roster(classID: classID) }
            guard let listing = try await service.catalog.classListing(id: classID) else { throw RegistrationError.unknownClass(classID).problem }
            func entry(_ item: ClassRoster.Entry, position: Int?) -> V1Views.RosterEntry {
                .init(
                    accountId: item.student.accountID, redId: item.student.redID, firstName: item.student.firstName,
                    lastName: item.student.lastName, email: item.student.email, since: item.since, position: position
                )
            }
            return try GatewayJSON.response(V1Views.Roster(
                class: V1Views.Class(listing, detail: true),
                enrolled: roster.enrolled.map { entry($0, position: nil) },
                waitlist: roster.waitlist.enumerated().map { entry($1, position: $0 + 1) },
                offers: roster.offers.map { .init(classId: $0.classID, offerId: $0.id, offeredAt: $0.offeredAt, expiresAt: $0.expiresAt, class: nil) }
            ))
        }
        group.patch("classes/:classId") { request, context in
            let classID = try V1CatalogRoutes.classID(context)
            let body = try await GatewayJSON.decode(SeatsRequest.self, from: request, context: context)
            guard (0...100_000).contains(body.seats) else { throw Problem.validation("seats must be between 0 and 100000.", field: "seats") }
            let listing = try await V1EnrollmentRoutes.run { try await service.admin.setSeats(classID: classID, seats: body.seats) }
            return try GatewayJSON.response(V1Views.Class(listing, detail: true))
        }
        group.post("classes") { request, context in
            let body = try await GatewayJSON.decode(NativeCatalogFormat.ClassRow.self, from: request, context: context)
            let row = try Self.classRow(body, id: body.id)
            let saved = try await V1EnrollmentRoutes.run { try await service.admin.saveClass(row, createOnly: true) }
            return try GatewayJSON.response(
                V1Views.Class(saved.listing, detail: true), status: .created,
                headers: [.location: "/v1/registration/classes/\(saved.listing.info.id)"]
            )
        }
        group.put("classes/:classId") { request, context in
            // Creates when missing: an id no class can have is the request's mistake, not a 404.
            guard let classID = context.parameters.get("classId").flatMap(Int64.init) else {
                throw Problem.validation("The class id must be an integer of at most 64 bits.", field: "classId")
            }
            let body = try await GatewayJSON.decode(NativeCatalogFormat.ClassRow.self, from: request, context: context)
            if let id = body.id, id != classID {
                throw Problem.validation("The body's id (\(id)) differs from the path's (\(classID)).", field: "id")
            }
            let row = try Self.classRow(body, id: classID)
            let saved = try await V1EnrollmentRoutes.run { try await service.admin.saveClass(row, createOnly: false) }
            return try GatewayJSON.response(V1Views.Class(saved.listing, detail: true), status: saved.created ? .created : .ok)
        }
        group.delete("classes/:classId") { request, context in
            let classID = try V1CatalogRoutes.classID(context)
            let drop = try queryFlag(request.uri.queryParameters.get("dropStudents"), name: "dropStudents")
            let dropped = try await V1EnrollmentRoutes.run { try await service.admin.deleteClass(id: classID, dropStudents: drop) }
            return try GatewayJSON.response(Deleted(classId: classID, droppedAccountIds: dropped))
        }
        group.put("red-id-roster") { request, context in
            let body = try await GatewayJSON.decode(RosterRequest.self, from: request, context: context)
            guard body.redIds.allSatisfy(RedID.isWellFormed) else {
                throw Problem.validation("Every red id must be nine digits.", field: "redIds")
            }
            let count = try await service.admin.replaceRedIDRoster(body.redIds)
            return try GatewayJSON.response(["count": count])
        }
        // An admin binds a red id to an account (the only way besides addstudent under `roster`).
        group.put("students/:accountId/profile") { request, context in
            guard let raw = context.parameters.get("accountId"), let accountID = Int64(raw) else {
                throw Problem.notFound("No account has this id.") // not a number, or past 64 bits
            }
            let body = try await GatewayJSON.decode(V1EnrollmentRoutes.ProfileRequest.self, from: request, context: context)
            let profile = try await service.students.saveProfileAsAdmin(
                accountID: accountID, redID: body.redId, firstName: body.firstName, lastName: body.lastName, email: body.email
            )
            return try GatewayJSON.response(V1Views.Profile(profile))
        }
    }

    /// A yes/no query parameter: `1` or `true` (any case) is yes, anything else or absent is no.
    /// A class definition from a request body, checked like an imported row.
    static func classRow(_ body: NativeCatalogFormat.ClassRow, id: Int64?) throws -> CatalogDocument.Class {
        switch NativeCatalogFormat.classRow(body, label: "class", defaultTerm: nil) {
        case .failure(let error): throw RegistrationError.invalidClass(error.reason).problem
        case .success(var row):
            row.id = id
            return row
        }
    }
}

import Catalog
import GatewayHTTP
import Foundation
import GatewayCore
import Hummingbird

/// The signed-in student's own registration at `/v1/me/registration`: profile, enrollments,
/// waitlist places with positions, seat offers, and reset.
struct V1EnrollmentRoutes: Sendable {
    let service: RegistrationService

    struct ClassRequest: Decodable { let classId: Int64 }
    struct WaitlistRequest: Decodable {
        let classId: Int64
        let dropIfEnrolled: Int64?
    }

    struct ProfileRequest: Decodable {
        let redId: String
        let firstName: String
        let lastName: String
        let email: String
        /// Whether friends see the student's enrollments; absent: unchanged.
        let shareEnrollments: Bool?
    }

    struct SharingRequest: Decodable { let shareEnrollments: Bool }

    func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let service = self.service
        let group = guarded.group(router, "v1/me/registration", access: .authenticated)

        group.get { _, context in
            let identity = try context.requireIdentity()
            return try GatewayJSON.response(try await Self.schedule(of: identity.accountID, service: service))
        }
        group.delete { _, context in
            let student = try await Self.student(context, service: service)
            try await service.enrollment.reset(studentID: student)
            return Response(status: .noContent)
        }
        group.put("profile") { request, context in
            let identity = try context.requireIdentity()
            let body = try await GatewayJSON.decode(ProfileRequest.self, from: request, context: context)
            let profile = try await Self.run {
                try await service.students.saveProfile(
                    accountID: identity.accountID, redID: body.redId, firstName: body.firstName, lastName: body.lastName, email: body.email,
                    shareEnrollments: body.shareEnrollments
                )
            }
            let shares = try await service.students.sharesEnrollments(accountID: identity.accountID)
            return try GatewayJSON.response(V1Views.Profile(profile, sharesEnrollments: shares))
        }
        group.get("sharing") { _, context in
            let identity = try context.requireIdentity()
            return try GatewayJSON.response(V1Views.Sharing(shareEnrollments: try await service.students.sharesEnrollments(accountID: identity.accountID)))
        }
        group.put("sharing") { request, context in
            let identity = try context.requireIdentity()
            let body = try await GatewayJSON.decode(SharingRequest.self, from: request, context: context)
            try await Self.run { try await service.students.shareEnrollments(body.shareEnrollments, accountID: identity.accountID) }
            return try GatewayJSON.response(V1Views.Sharing(shareEnrollments: body.shareEnrollments))
        }
        group.post("enrollments") { request, context in
            let student = try await Self.student(context, service: service)
            let body = try await GatewayJSON.decode(ClassRequest.self, from: request, context: context)
            try await Self.run { try await service.enrollment.register(studentID: student, classID: body.classId) }
            return try GatewayJSON.response(
                try await Self.schedule(of: student, service: service), status: .created,
                headers: [.location: "/v1/me/registration"]
            )
        }
        group.delete("enrollments/:classId") { _, context in
            let student = try await Self.student(context, service: service)
            let classID = try V1CatalogRoutes.classID(context)
            try await Self.run { try await service.enrollment.drop(studentID: student, classID: classID) }
            return Response(status: .noContent)
        }
        group.post("waitlist") { request, context in
            let student = try await Self.student(context, service: service)
            let body = try await GatewayJSON.decode(WaitlistRequest.self, from: request, context: context)
            let position = try await Self.run {
                try await service.enrollment.joinWaitlist(studentID: student, classID: body.classId, dropIfEnrolled: body.dropIfEnrolled)
            }
            return try GatewayJSON.response(["classId": body.classId, "position": Int64(position)], status: .created)
        }
        group.delete("waitlist/:classId") { _, context in
            let student = try await Self.student(context, service: service)
            let classID = try V1CatalogRoutes.classID(context)
            try await Self.run { try await service.enrollment.leaveWaitlist(studentID: student, classID: classID) }
            return Response(status: .noContent)
        }
        group.post("offers/:classId/claim") { _, context in
            let student = try await Self.student(context, service: service)
            let classID = try V1CatalogRoutes.classID(context)
            try await Self.run { try await service.enrollment.claimOffer(studentID: student, classID: classID) }
            return try GatewayJSON.response(try await Self.schedule(of: student, service: service), status: .created)
        }
        group.delete("offers/:classId") { _, context in
            let student = try await Self.student(context, service: service)
            let classID = try V1CatalogRoutes.classID(context)
            try await Self.run { try await service.enrollment.declineOffer(studentID: student, classID: classID) }
            return Response(status: .noContent)
        }
    }

    /// Turns a registration refusal into its problem.
    static func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as RegistrationError {
            throw error.problem
        }
    }

    /// The caller's account id, when it has a student profile.
    static func student(_ context: GatewayContext, service: RegistrationService) async throws -> Int64 {
        let identity = try context.requireIdentity()
        guard try await service.students.profile(accountID: identity.accountID) != nil else { throw RegistrationError.profileRequired.problem }
        return identity.accountID
    }

    static func schedule(of accountID: Int64, service: RegistrationService) async throws -> V1Views.Schedule {
        let profile = try await service.students.profile(accountID: accountID)
        let schedule = try await service.enrollment.schedule(studentID: accountID)
        let snapshot = service.catalog.cachedSnapshot()
        func view(_ id: Int64) -> V1Views.Class? { snapshot.listing(id: id).map { V1Views.Class($0) } }
        return V1Views.Schedule(
            profile: profile.map { V1Views.Profile($0) }, classLimit: service.settings.classLimit,
            waitlistPolicy: service.settings.waitlistPolicy.rawValue,
            enrollments: schedule.enrollments.map { .init(classId: $0.classID, enrolledAt: $0.enrolledAt, class: view($0.classID)) },
            waitlist: schedule.waitlist.map {
                .init(classId: $0.classID, position: $0.position, joinedAt: $0.joinedAt, dropIfEnrolled: $0.dropIfEnrolled, class: view($0.classID))
            },
            offers: schedule.offers.map {
                .init(classId: $0.classID, offerId: $0.id, offeredAt: $0.offeredAt, expiresAt: $0.expiresAt, class: view($0.classID))
            }
        )
    }
}

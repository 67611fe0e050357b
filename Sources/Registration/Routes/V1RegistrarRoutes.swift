import Catalog
import Foundation
import GatewayCore
import GatewayHTTP
import Hummingbird
import NIOFoundationEssentialsCompat

/// The registrar's seat feed: `POST /v1/registrar/seat-status` (signed deliveries, public: the
/// signature is the credential) and each class's seat history for admins
/// (`GET /v1/admin/registration/classes/{classId}/seat-history`), with the state of the terms'
/// polls (`GET /v1/admin/registration/registrar-polls`).
struct V1RegistrarRoutes: Sendable {
    let service: RegistrationService
    /// Deliveries per client address and minute, signed or not: each is verified before
    /// anything is read from the database.
    let deliveries: RateLimit

    struct Outcome: Encodable {
        let term: String
        let applied: Int
        let stale: Int
        let unknownSections: [String]
        let duplicate: Bool
    }

    struct HistoryEntry: Encodable {
        let receivedAt: Date
        let asOf: Date
        let seats: Int
        let enrolled: Int
        let waitlisted: Int?
        let status: String
        let via: String
    }

    struct History: Encodable {
        let classId: Int64
        let items: [HistoryEntry]
    }

    struct Poll: Encodable {
        let term: String
        let feedUrlHost: String?
        let pollSeconds: Int
        let polledAt: Date?
        let outcome: String?
    }

    struct Polls: Encodable {
        let items: [Poll]
    }

    func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let service = self.service, deliveries = self.deliveries
        guarded.group(router, "v1/registrar/seat-status", access: .public).post { request, context in
            if let wait = deliveries.take(context.clientAddress.map(ClientNetwork.key) ?? "unknown", now: Date()) {
                throw Problem.tooManyRequests(retryAfterSeconds: wait, detail: "Too many registrar deliveries from this address. Try again later.")
            }
            let buffer: ByteBuffer
            do {
                buffer = try await request.body.collect(upTo: RegistrarSeatFeed.maximumBodyBytes)
            } catch let error as HTTPError where error.status == .contentTooLarge {
                throw Problem.payloadTooLarge(limit: RegistrarSeatFeed.maximumBodyBytes)
            }
            let headers = request.headers
            func header(_ name: String) -> String? { HTTPField.Name(name).flatMap { headers[$0] } }
            let outcome = try await V1EnrollmentRoutes.run {
                try await service.registrar.receive(
                    id: header("webhook-id"), timestamp: header("webhook-timestamp"), signature: header("webhook-signature"),
                    body: Data(buffer: buffer)
                )
            }
            return try GatewayJSON.response(Outcome(
                term: outcome.term, applied: outcome.applied, stale: outcome.stale, unknownSections: outcome.unknownSections,
                duplicate: outcome.duplicate
            ))
        }

        let admin = guarded.group(router, "v1/admin/registration", access: .role(.admin))
        admin.get("classes/:classId/seat-history") { request, context in
            let classID = try V1CatalogRoutes.classID(context)
            let limit = try pageLimit(request.uri.queryParameters["limit"].map(String.init), default: 100, maximum: 1000)
            let entries = try await V1EnrollmentRoutes.run { try await service.registrar.history(classID: classID, limit: limit) }
            return try GatewayJSON.response(History(classId: classID, items: entries.map { entry in
                HistoryEntry(
                    receivedAt: entry.receivedAt, asOf: entry.asOf, seats: entry.seats, enrolled: entry.enrolled, waitlisted: entry.waitlisted,
                    status: entry.status.name, via: entry.via
                )
            }))
        }
        admin.get("registrar-polls") { _, _ in
            let polls = try await service.registrar.pollStates()
            return try GatewayJSON.response(Polls(items: polls.map { term, record in
                Poll(
                    term: term.id, feedUrlHost: term.registrarFeedURL?.host, pollSeconds: term.registrarPollInterval, polledAt: record?.polledAt,
                    outcome: record?.outcome
                )
            }))
        }
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOFoundationEssentialsCompat

/// The admin hook under `<prefix>/_admin/`, behind ``AdminTokenMiddleware``: scores, faults,
/// reset and request counts. Bodies and answers are JSON (camelCase keys, except the score
/// object, which is the protocol's snake_case one); errors are `{"error": "..."}`.
struct AdminRoutes: Sendable {
    let state: SimulatorState
    let links: FileLinks

    static let maxBodyBytes = 64 * 1024

    func register<Context: RequestContext>(on group: RouterGroup<Context>, token: String) {
        let admin = group.add(middleware: AdminTokenMiddleware<Context>(token: token))
        admin.post("scores") { request, context in
            await self.answer {
                let input = try await Self.decode(NewScoreInput.self, from: request, context: context)
                let now = Int(Date().timeIntervalSince1970)
                let located = try state.update { (data) throws(AdminFailure) in try ScoreEditing.add(input, now: now, to: &data) }
                return try Self.json(links.wire(located.score, enrollment: located.enrollment, section: located.section), snakeCase: true, status: .created)
            }
        }
        admin.patch("scores/:id") { request, context in
            await self.answer {
                guard let id = context.parameters.get("id").flatMap({ Int($0) }) else {
                    throw AdminFailure(status: .badRequest, message: "The score id is an integer")
                }
                let patch = try await Self.decode(ScorePatch.self, from: request, context: context)
                let located = try state.update { (data) throws(AdminFailure) in try ScoreEditing.patch(id, with: patch, in: &data) }
                return try Self.json(links.wire(located.score, enrollment: located.enrollment, section: located.section), snakeCase: true)
            }
        }
        admin.get("faults") { _, _ in await self.answer { try Self.json(state.fault) } }
        admin.put("faults") { request, context in
            await self.answer {
                let fault = try await Self.decode(SimulatorFault.self, from: request, context: context)
                guard (0...60_000).contains(fault.delayMs) else {
                    throw AdminFailure(status: .badRequest, message: "delayMs is between 0 and 60000")
                }
                if let remaining = fault.remaining, remaining < 1 {
                    throw AdminFailure(status: .badRequest, message: "remaining is at least 1, or null for until reset")
                }
                state.setFault(fault)
                return try Self.json(state.fault)
            }
        }
        admin.post("reset") { _, _ in
            await self.answer {
                state.reset()
                return try Self.json(["reset": true])
            }
        }
        admin.get("requests") { _, _ in await self.answer { try Self.json(state.counts) } }
    }

    /// The handler's answer, or its failure as `{"error": ...}`.
    private func answer(_ body: () async throws -> Response) async -> Response {
        do {
            return try await body()
        } catch let failure as AdminFailure {
            return Self.error(failure.message, status: failure.status)
        } catch {
            return Self.error("\(error)", status: .badRequest)
        }
    }

    private static func decode<T: Decodable, Context: RequestContext>(
        _ type: T.Type, from request: Request, context: Context
    ) async throws -> T {
        let buffer = try await request.body.collect(upTo: min(context.maxUploadSize, maxBodyBytes))
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer: buffer))
        } catch {
            throw AdminFailure(status: .badRequest, message: "Invalid JSON body for \(T.self): \(error)")
        }
    }

    private static func json(_ value: some Encodable, snakeCase: Bool = false, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = snakeCase ? WireJSON.encoder() : JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        return Response(
            status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(data: data))
        )
    }

    private static func error(_ message: String, status: HTTPResponse.Status) -> Response {
        (try? json(["error": message], status: status)) ?? Response(status: status)
    }
}

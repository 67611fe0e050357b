import Foundation
import GatewayCore
public import GatewayHTTP
public import Hummingbird
import NIOCore
import NIOFoundationEssentialsCompat

/// Academic terms: anyone reads them (`/v1/terms`); admins create, replace and delete them
/// (`/v1/admin/terms`). The JSON of a term is ``Term``'s own coding. A term that does not
/// decode or does not validate is a 422 `validation-failed` problem whose `invalidFields`
/// names the field's JSON path (`lastDay`, `holidays[1].date`).
public struct V1TermRoutes: Sendable {
    let service: TermService

    public init(service: TermService) { self.service = service }

    public func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let service = self.service
        let list: GuardedGroup.Handler = { _, _ in
            try GatewayJSON.response(["items": try await service.terms()])
        }

        let visible = guarded.group(router, "v1/terms", access: .public)
        visible.get(use: list)
        visible.get(":id") { _, context in
            let id = try Self.termID(context)
            guard let term = try await service.term(id: id) else { throw CatalogError.termNotFound(id) }
            return try GatewayJSON.response(term)
        }

        let admin = guarded.group(router, "v1/admin/terms", access: .role(.admin))
        admin.get(use: list)
        admin.post { request, context in
            let term = try await Self.decodeTerm(request, context: context, pathID: nil)
            try await service.create(term)
            return try GatewayJSON.response(term, status: .created, headers: [.location: Self.location(of: term.id)])
        }
        admin.put(":id") { request, context in
            let id = try Self.termID(context)
            let term = try await Self.decodeTerm(request, context: context, pathID: id)
            let saved = try await service.put(id: id, term)
            return try GatewayJSON.response(
                saved.term, status: saved.created ? .created : .ok, headers: saved.created ? [.location: Self.location(of: id)] : [:]
            )
        }
        admin.delete(":id") { _, context in
            try await service.delete(id: try Self.termID(context))
            return Response(status: .noContent)
        }
    }

    /// The term id path parameter, percent-decoded.
    static func termID(_ context: GatewayContext) throws -> String {
        guard let raw = context.parameters.get("id"), !raw.isEmpty else {
            throw Problem.badRequest("The address needs a term id.", invalidFields: ["id"])
        }
        return raw.removingPercentEncoding ?? raw
    }

    /// The public address of a term.
    static func location(of id: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/;")
        return "/v1/terms/" + (id.addingPercentEncoding(withAllowedCharacters: allowed) ?? id)
    }

    /// Reads a term from the body (bounded by the context's upload limit). With `pathID`, a
    /// body without `id` takes the address's. Decoding errors that name a field are
    /// ``CatalogError/invalidTerm(_:)`` (422); a body that is not a JSON object is a 400.
    static func decodeTerm(_ request: Request, context: GatewayContext, pathID: String?) async throws -> Term {
        let buffer = try await request.body.collect(upTo: context.maxUploadSize)
        guard buffer.readableBytes > 0 else { throw Problem.badRequest("The request needs a JSON body: a term.") }
        var data = Data(buffer: buffer)
        let decoder = GatewayJSON.decoder()
        if let pathID, case .object(var object)? = try? decoder.decode(JSONValue.self, from: data), object["id"] == nil {
            object["id"] = .string(pathID)
            data = try GatewayJSON.encoder().encode(JSONValue.object(object))
        }
        do {
            return try decoder.decode(Term.self, from: data)
        } catch let error as DecodingError {
            guard let problem = TermProblem(error) else { throw Problem.badRequest("The body is not a JSON object (a term).") }
            throw CatalogError.invalidTerm(problem)
        }
    }
}

import NIOFoundationEssentialsCompat
import GatewayHTTP
import Foundation
import GatewayCore
import Hummingbird
import Storage

/// Liveness, readiness, metrics and the API contract.
struct OpsRoutes {
    let storage: GatewayStorage
    let openAPIPath: String?
    /// When set, `/metrics` (and `/metrics/`) answer only requests with
    /// `Authorization: Bearer <token>`, compared in constant time: the app guards its metrics
    /// itself instead of trusting a proxy rule to hide them.
    var metricsToken: String?
    /// Without a token, the socket peers `/metrics` answers: loopback and the trusted proxies
    /// (a scraper on the host, or one behind the operator's proxy); anyone else gets 403.
    var metricsReaders: [AddressRange] = Self.loopback

    static let loopback = ["127.0.0.0/8", "::1/128", "::ffff:127.0.0.0/104"].compactMap(AddressRange.init)

    func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let storage = self.storage
        let openAPIPath = self.openAPIPath
        let metricsToken = self.metricsToken, metricsReaders = self.metricsReaders

        // Liveness answers the same bytes every time: made once, not encoded per probe.
        let alive = try? GatewayJSON.response(["status": "ok"], headers: [.cacheControl: "no-store"])
        guarded.group(router, "healthz", access: .public).get { _, _ in
            try alive ?? GatewayJSON.response(["status": "ok"], headers: [.cacheControl: "no-store"])
        }

        // Readiness: the database answers and every migration is applied. `?deep=1` also runs
        // the integrity check (SQLite reads the whole file), so only admins may ask for it.
        guarded.group(router, "readyz", access: .public).get { request, context in
            var context = context
            let deep = try queryFlag(request.uri.queryParameters["deep"].map(String.init), name: "deep")
            if deep {
                context.identity = try await guarded.authenticator.authenticate(request, context: context)
                guard let identity = context.identity else { throw Problem.unauthenticated() }
                guard identity.role >= .admin else { throw Problem.forbidden("Only admins may run the deep check.") }
            }
            let ready = await storage.isReady()
            var body: [String: String] = ["status": ready ? "ready" : "not-ready", "database": ready ? "ok" : "unavailable"]
            var healthy = ready
            if deep {
                let report = (try? await storage.integrityCheck()) ?? ["check failed"]
                body["integrity"] = report.joined(separator: "; ")
                healthy = healthy && report == ["ok"]
            }
            if !healthy { body["status"] = "not-ready" }
            return try GatewayJSON.response(body, status: healthy ? .ok : .serviceUnavailable, headers: [.cacheControl: "no-store"])
        }

        guarded.group(router, "metrics", access: .public).get { request, context in
            // The client, not the socket: through a trusted proxy, a request made for someone
            // outside is judged by that someone's address.
            if metricsToken == nil, let client = context.clientAddress, !metricsReaders.contains(where: { $0.contains(client) }) {
                throw Problem.forbidden("The metrics answer loopback and trusted proxies only; set GATEWAY_METRICS_TOKEN to scrape them from elsewhere.")
            }
            if let metricsToken {
                let presented = request.headers[.authorization].flatMap { value -> String? in
                    value.lowercased().hasPrefix("bearer ") ? String(value.dropFirst(7)) : nil
                }
                guard let presented, constantTimeEquals(Array(presented.utf8), Array(metricsToken.utf8)) else {
                    throw Problem.unauthenticated("The metrics need 'Authorization: Bearer <metrics token>'.")
                }
            }
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: GatewayMetrics.exposition()))
            )
        }

        guarded.group(router, "openapi.yaml", access: .public).get { _, _ in
            guard let path = openAPIPath, let data = FileManager.default.contents(atPath: path) else {
                throw Problem.notFound("The API description is not installed with this build.")
            }
            return Response(
                status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(data: data))
            )
        }
    }

    /// Finds `openapi/openapi.yaml` from the working directory or above the executable.
    static func locateSpec() -> String? {
        var candidates = [FileManager.default.currentDirectoryPath]
        var dir = URL(fileURLWithPath: CommandLine.arguments.first ?? ".").deletingLastPathComponent()
        for _ in 0..<6 {
            candidates.append(dir.path)
            dir = dir.deletingLastPathComponent()
        }
        return candidates
            .map { URL(fileURLWithPath: $0).appendingPathComponent("openapi/openapi.yaml").path }
            .first { FileManager.default.fileExists(atPath: $0) }
    }
}

import Foundation
import Hummingbird

// The ceiling for the request-path benchmark: a bare Hummingbird 2 server, no middleware, one
// route answering what the gateway's /healthz answers (`{"status":"ok"}`, JSON,
// `Cache-Control: no-store`), made the same way: the gateway encodes its liveness answer once
// (since 2026-11-29), so the ceiling does too; until then both ran Foundation's JSONEncoder per
// request. What the two differ by is the gateway's middleware and router, nothing else.
// Usage: bare-hummingbird [port] (default 18099), 127.0.0.1 only.
let port = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 18099
let router = Router()
let body = try JSONEncoder().encode(["status": "ok"])
router.get("healthz") { _, _ -> Response in
    Response(
        status: .ok,
        headers: [.contentType: "application/json", .cacheControl: "no-store"],
        body: .init(byteBuffer: ByteBuffer(bytes: body))
    )
}
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()

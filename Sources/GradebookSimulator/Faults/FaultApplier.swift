import Hummingbird
import NIOCore

/// Applies a ``SimulatorFault`` to one protocol request: before it is answered (slow, 500, 401)
/// and to its answer (truncated, reset).
enum FaultApplier {
    /// The error that breaks a `reset` response's body stream; the server then closes the connection.
    struct SimulatedReset: Error, CustomStringConvertible {
        var description: String { "gradebook simulator: connection reset (fault)" }
    }

    /// Waits for `slow`; answers instead of the request for `error500` and `unauthorized`.
    static func before(_ fault: SimulatorFault) async throws -> ProtocolResponse? {
        switch fault.mode {
        case .slow:
            try await Task.sleep(for: .milliseconds(max(0, fault.delayMs)))
            return nil
        case .error500:
            return .text("Internal Server Error (simulated)\n", status: .internalServerError)
        case .unauthorized:
            return .unauthorized()
        case .html:
            return .text(Self.hostilePage, status: .ok, contentType: "text/html; charset=utf-8")
        case .none, .truncated, .reset:
            return nil
        }
    }

    /// What the `html` fault answers.
    static let hostilePage = "<!doctype html><html><body><script>document.title = 'owned'</script></body></html>\n"

    /// The answer as sent: whole, cut in half (`truncated`), or broken off (`reset`).
    static func after(_ fault: SimulatorFault, _ answer: ProtocolResponse) -> Response {
        switch fault.mode {
        case .truncated:
            var cut = answer
            cut.status = .ok
            cut.contentType = "application/json"
            cut.body = Array(answer.body.prefix(max(1, answer.body.count / 2)))
            return cut.response()
        case .reset:
            let sent = Array(answer.body.prefix(min(8, max(1, answer.body.count / 2))))
            let body = ResponseBody(contentLength: answer.body.count) { writer in
                try await writer.write(ByteBuffer(bytes: sent))
                throw SimulatedReset()
            }
            return answer.response(body: body)
        case .none, .slow, .error500, .unauthorized, .html:
            return answer.response()
        }
    }
}

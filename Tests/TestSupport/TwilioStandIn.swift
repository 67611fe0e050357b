public import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A stand-in for Twilio's Programmable Messaging REST API on 127.0.0.1 and an ephemeral port,
/// written from Twilio's public documentation of the Messages resource:
///
/// - `POST /2010-04-01/Accounts/{AccountSid}/Messages.json`, an
///   `application/x-www-form-urlencoded` body with `To`, `From` (or `MessagingServiceSid`) and
///   `Body`, HTTP Basic auth with the account SID and auth token.
/// - Success: `201 Created` with the message resource as JSON (`sid` `SM...`, `status`
///   `queued`, `to`, `from`, `body`, `num_segments`, `account_sid`, ...).
/// - Errors: a JSON body `{"code", "message", "more_info", "status"}`: 401 with 20003 for bad
///   credentials, 404 with 20404 for another account's path, 400 with 21604 (no `To`), 21602
///   (no `Body`), 21603 (no `From`), 21211 (a `To` that is not E.164).
/// - On demand (``failure``): 429 with 20429 and `Retry-After`, 500 with 20500, 400 with 21610
///   (the recipient texted STOP), 400 with 21211.
///
/// Every request is recorded (form decoded, whether its credentials were right) before the
/// answer. The server stops itself after `lifetime`, and `stop()` sooner.
public final class TwilioStandIn: Sendable {
    /// What the stand-in answers instead of 201 while set.
    public enum Failure: Sendable, Equatable {
        case tooManyRequests(retryAfter: Int)
        case serverError
        case unsubscribed
        case invalidNumber
    }

    /// One request as received.
    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var headers: [String: String]
        /// The form fields, decoded, in order.
        public var fields: [(name: String, value: String)]
        public var authorized: Bool
        /// The status it was answered with.
        public var status: Int
        /// When it had been read whole.
        public var arrived = ContinuousClock.now

        public func field(_ name: String) -> String? { fields.first { $0.name == name }?.value }
    }

    /// The sender number the harnesses configure.
    public static let fromNumber = "+16195550100"

    public let accountSID: String
    public let authToken: String
    public let port: Int
    private let listener: Int32
    private let state = Mutex(State())

    private struct State {
        var requests: [Request] = []
        var failure: Failure?
        var stopped = false
        var connections: Set<Int32> = []
        var sequence = 0
    }

    public init(
        accountSID: String = "AC" + String(repeating: "0123456789abcdef", count: 2), authToken: String = "twilio-auth-token-" + UUID().uuidString.lowercased(),
        lifetime: Duration = .seconds(300)
    ) throws {
        self.accountSID = accountSID
        self.authToken = authToken
        (listener, port) = try LoopbackListener.open(host: "127.0.0.1")
        LoopbackListener.start(name: "twilio-standin-\(port)", lifetime: lifetime, acceptLoop: { [self] in acceptLoop() }, stop: { [self] in stop() })
    }

    deinit { stop() }

    /// `http://127.0.0.1:<port>`, what `GATEWAY_SMS_API_URL` is set to.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The requests so far, in order.
    public var requests: [Request] { state.withLock { $0.requests } }

    /// The texts accepted (answered 201) so far, in order.
    public var messages: [Request] { requests.filter { $0.status == 201 } }

    /// While set, every well-formed, authorized request is answered with this failure.
    public var failure: Failure? {
        get { state.withLock { $0.failure } }
        set { state.withLock { $0.failure = newValue } }
    }

    public func stop() {
        let open: Set<Int32>? = state.withLock { state in
            guard !state.stopped else { return nil }
            state.stopped = true
            defer { state.connections = [] }
            return state.connections
        }
        guard let open else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in open {
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
        }
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            let admitted = state.withLock { state in
                guard !state.stopped else { return false }
                state.connections.insert(fd)
                return true
            }
            guard admitted else {
                close(fd)
                return
            }
            Thread { [self] in serve(fd) }.start()
        }
    }

    private func serve(_ fd: Int32) {
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var parsed: LoopbackReceiver.Request?
        while parsed == nil {
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { break }
            buffer.append(contentsOf: chunk[0..<count])
            parsed = LoopbackReceiver.parse(buffer)
        }
        if let parsed {
            let (status, headers, body) = answer(parsed)
            var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            let bytes = Array((head + "\r\n" + body).utf8)
            _ = bytes.withUnsafeBufferPointer { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        let mine = state.withLock { $0.connections.remove(fd) != nil }
        if mine {
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
        }
    }

    /// Twilio's answer to one request, recorded.
    private func answer(_ request: LoopbackReceiver.Request) -> (Int, [(String, String)], String) {
        let parts = request.requestLine.split(separator: " ")
        let method = parts.first.map(String.init) ?? ""
        let path = parts.count > 1 ? String(parts[1]) : ""
        let fields = Self.decodeForm(String(decoding: request.body, as: UTF8.self))
        let expected = "Basic " + Data("\(accountSID):\(authToken)".utf8).base64EncodedString()
        let authorized = request.headers["authorization"] == expected
        func field(_ name: String) -> String? { fields.first { $0.name == name }?.value }

        var status = 201
        var headers: [(String, String)] = []
        var body: String
        if !authorized {
            (status, body) = (401, Self.error(20003, "Authenticate", status: 401))
            headers.append(("WWW-Authenticate", "Basic realm=\"Twilio API\""))
        } else if method != "POST" || path != "/2010-04-01/Accounts/\(accountSID)/Messages.json" {
            (status, body) = (404, Self.error(20404, "The requested resource \(path) was not found", status: 404))
        } else if request.headers["content-type"]?.hasPrefix("application/x-www-form-urlencoded") != true {
            (status, body) = (400, Self.error(21620, "Invalid media type", status: 400))
        } else if field("To")?.isEmpty ?? true {
            (status, body) = (400, Self.error(21604, "A 'To' phone number is required.", status: 400))
        } else if (field("From") ?? field("MessagingServiceSid") ?? "").isEmpty {
            (status, body) = (400, Self.error(21603, "A 'From' phone number is required.", status: 400))
        } else if field("Body")?.isEmpty ?? true {
            (status, body) = (400, Self.error(21602, "Message body is required.", status: 400))
        } else if !Self.isE164(field("To") ?? "") {
            (status, body) = (400, Self.error(21211, "The 'To' number \(field("To") ?? "") is not a valid phone number.", status: 400))
        } else {
            switch failure {
            case .tooManyRequests(let retryAfter)?:
                (status, body) = (429, Self.error(20429, "Too Many Requests", status: 429))
                headers.append(("Retry-After", String(retryAfter)))
            case .serverError?:
                (status, body) = (500, Self.error(20500, "Internal Server Error", status: 500))
            case .unsubscribed?:
                (status, body) = (400, Self.error(21610, "Attempt to send to unsubscribed recipient", status: 400))
            case .invalidNumber?:
                (status, body) = (400, Self.error(21211, "The 'To' number \(field("To") ?? "") is not a valid phone number.", status: 400))
            case nil:
                let sid = state.withLock { state -> String in
                    state.sequence += 1
                    return "SM" + String(format: "%032x", state.sequence)
                }
                let text = field("Body") ?? ""
                let resource: [String: Any] = [
                    "sid": sid, "account_sid": accountSID, "status": "queued", "to": field("To") ?? "",
                    "from": field("From") as Any? ?? NSNull(), "messaging_service_sid": field("MessagingServiceSid") as Any? ?? NSNull(),
                    "body": text, "num_segments": String(text.count <= 160 ? 1 : (text.count + 152) / 153), "direction": "outbound-api",
                    "api_version": "2010-04-01", "uri": "/2010-04-01/Accounts/\(accountSID)/Messages/\(sid).json",
                ]
                body = String(decoding: (try? JSONSerialization.data(withJSONObject: resource, options: [.sortedKeys])) ?? Data("{}".utf8), as: UTF8.self)
            }
        }
        let recorded = Request(method: method, path: path, headers: request.headers, fields: fields, authorized: authorized, status: status)
        state.withLock { $0.requests.append(recorded) }
        return (status, headers, body)
    }

    static func error(_ code: Int, _ message: String, status: Int) -> String {
        let object: [String: Any] = ["code": code, "message": message, "more_info": "https://www.twilio.com/docs/errors/\(code)", "status": status]
        return String(decoding: (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8), as: UTF8.self)
    }

    static func isE164(_ number: String) -> Bool {
        let digits = number.dropFirst()
        return number.hasPrefix("+") && (8...15).contains(digits.count) && digits.first != "0" && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 201: "Created"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        default: "Internal Server Error"
        }
    }

    /// A form body's fields, written here independently of the gateway's encoder.
    public static func decodeForm(_ body: String) -> [(name: String, value: String)] {
        body.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            return (parts[0], parts.count > 1 ? parts[1] : "")
        }
    }

    /// A form body as Twilio's webhooks send it.
    public static func encodeForm(_ fields: [(name: String, value: String)]) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        allowed.insert(charactersIn: "-._*")
        func escape(_ text: String) -> String {
            (text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text).replacingOccurrences(of: "%20", with: "+")
        }
        return fields.map { "\(escape($0.name))=\(escape($0.value))" }.joined(separator: "&")
    }
}

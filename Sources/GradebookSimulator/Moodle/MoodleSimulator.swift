public import Foundation
import HTTPTypes
public import Hummingbird
import NIOCore

/// A Moodle stand-in (docs/gradebook-simulator.md, Moodle mode), written from Moodle's Web
/// Services documentation: `login/token.php` (form `username`, `password`, `service`; errors
/// `{"error", "errorcode"}`), `webservice/rest/server.php` with `wstoken`, `wsfunction` and
/// `moodlewsrestformat=json` (GET or POST form) answering the four functions the gateway reads,
/// failures as **HTTP 200** `{"exception", "errorcode", "message"}`, hidden items and courses
/// whose grades students may not see. Copies share one state.
public struct MoodleSimulator: Sendable {
    let state: MoodleSimState
    /// The bearer token of `POST /_admin/moodle/grades` and `GET /_admin/moodle/requests` (how
    /// many requests it saw, for benchmarks); nil: not mounted.
    public let adminToken: String?

    public init(data: MoodleSimData = .demo(), adminToken: String? = nil) {
        state = MoodleSimState(data: data)
        self.adminToken = adminToken.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Adds `/<prefix>/login/token.php`, `/<prefix>/webservice/rest/server.php` (and the admin
    /// route) to `router`; "" mounts them at the root.
    public func register<Context: RequestContext>(on router: some RouterMethods<Context>, prefix: String = "") {
        let prefix = GradebookSimulator.normalized(prefix)
        if prefix.isEmpty { register(routes: router) } else { register(routes: router.group(RouterPath(prefix))) }
    }

    private func register<Context: RequestContext>(routes router: some RouterMethods<Context>) {
        let state = self.state
        router.post("login/token.php") { request, _ in
            let form = try await Self.parameters(request)
            state.log(.init(path: "login/token.php", function: nil, hadToken: false))
            return Self.json(Self.token(form, state: state))
        }
        let rest: @Sendable (Request, Context) async throws -> Response = { request, _ in
            let parameters = try await Self.parameters(request)
            let function = parameters["wsfunction"] ?? ""
            state.log(.init(path: "webservice/rest/server.php", function: function, hadToken: parameters["wstoken"] != nil))
            guard parameters["moodlewsrestformat"] == "json" else {
                return Response(status: .ok, headers: [.contentType: "application/xml"], body: .init(byteBuffer: ByteBuffer(string: "<?xml version=\"1.0\"?><EXCEPTION class=\"moodle_exception\"><ERRORCODE>invalidformat</ERRORCODE></EXCEPTION>")))
            }
            let (data, serviceEnabled) = state.read { ($0.data, $0.serviceEnabled) }
            guard let token = parameters["wstoken"], let student = data.student(token: token) else {
                return Self.json(MoodleSimFunctions.exception("invalidtoken", "Invalid token - token not found"))
            }
            guard serviceEnabled, data.functions.contains(function) else {
                return Self.json(MoodleSimFunctions.exception("accessexception", "Access control exception", kind: "webservice_access_exception"))
            }
            if let code = state.takeFailure(function) { return Self.json(MoodleSimFunctions.exception(code, "Error (\(code))")) }
            let site = "\(request.head.scheme ?? "http")://\(request.head.authority ?? "127.0.0.1")"
            return Self.json(MoodleSimFunctions.answer(function, parameters, student: student, data: data, siteURL: site))
        }
        router.get("webservice/rest/server.php", use: rest)
        router.post("webservice/rest/server.php", use: rest)
        if let adminToken {
            router.get("_admin/moodle/requests") { request, _ in
                let header = request.headers[.authorization] ?? ""
                guard header.hasPrefix("Bearer "), constantTimeEquals(String(header.dropFirst(7)), adminToken) else { throw HTTPError(.notFound) }
                return Self.json(["total": state.read { $0.requests.count }])
            }
            router.post("_admin/moodle/grades") { request, context in
                let header = request.headers[.authorization] ?? ""
                guard header.hasPrefix("Bearer "), constantTimeEquals(String(header.dropFirst(7)), adminToken) else { throw HTTPError(.notFound) }
                let change = try await request.decode(as: GradeChange.self, context: context)
                state.change { $0.data.grades[change.userId, default: [:]][change.itemId] = .init(raw: change.grade, feedback: change.feedback, hidden: change.hidden ?? false) }
                return Response(status: .noContent)
            }
        }
    }

    struct GradeChange: Decodable {
        let userId: Int64, itemId: Int64, grade: Double?, feedback: String?, hidden: Bool?
    }

    /// `login/token.php`: a token for the student's username and password, or Moodle's error.
    static func token(_ form: [String: String], state: MoodleSimState) -> [String: any Sendable] {
        func error(_ code: String, _ message: String) -> [String: any Sendable] {
            ["error": message, "errorcode": code, "stacktrace": NSNull(), "debuginfo": NSNull(), "reproductionlink": NSNull()]
        }
        for name in ["username", "password", "service"] where form[name] == nil {
            return error("missingparam", "A required parameter (\(name)) was missing")
        }
        return state.read { store in
            if store.maintenance { return error("sitemaintenance", "The site is undergoing maintenance and is currently not available") }
            let username = (form["username"] ?? "").trimmingCharacters(in: .whitespaces).lowercased()
            guard let student = store.data.students.first(where: { $0.username == username && $0.password == form["password"] }) else {
                return error("invalidlogin", "Invalid login, please try again")
            }
            guard store.serviceEnabled, form["service"] == store.data.service else {
                return error("servicenotavailable", "Web service is not available (it doesn't exist or might be disabled)")
            }
            if student.passwordExpired { return error("passwordisexpired", "Password is expired, please change it") }
            guard let token = student.tokens.first else { return error("cannotcreatetoken", "Cannot create a token") }
            return ["token": token, "privatetoken": NSNull()]
        }
    }

    /// The query's parameters, and a form body's (POST), decoded as a form (`+` is a space).
    static func parameters(_ request: Request) async throws -> [String: String] {
        var result: [String: String] = [:]
        func read(_ encoded: String) {
            for pair in encoded.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let decode = { (text: Substring) in text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text) }
                if let name = parts.first { result[decode(name)] = parts.count > 1 ? decode(parts[1]) : "" }
            }
        }
        read(request.uri.query ?? "")
        if request.method == .post {
            let body = try await request.body.collect(upTo: 64 << 10)
            read(String(buffer: body))
        }
        return result
    }

    static func json(_ object: any Sendable) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    // MARK: In-process control

    /// The data served now.
    public var data: MoodleSimData { state.read(\.data) }

    /// Changes the data served.
    public func update(_ change: (inout MoodleSimData) -> Void) { state.change { change(&$0.data) } }

    /// Sets a student's grade on an item (a teacher grading, hiding or clearing it).
    public func setGrade(student: Int64, item: Int64, _ grade: MoodleSimData.Grade) {
        state.change { $0.data.grades[student, default: [:]][item] = grade }
    }

    /// The token stops working (the student or an admin revoked it).
    public func revoke(token: String) {
        state.change { store in
            for index in store.data.students.indices { store.data.students[index].tokens.removeAll { $0 == token } }
        }
    }

    /// The site goes into (or out of) maintenance mode.
    public func setMaintenance(_ on: Bool) { state.change { $0.maintenance = on } }

    /// Turns the site's web service for students on or off.
    public func setServiceEnabled(_ on: Bool) { state.change { $0.serviceEnabled = on } }

    /// The next `count` calls of `function` answer the exception `code` (HTTP 200).
    public func fail(_ function: String, with code: String, count: Int = 1) { state.change { $0.failing[function] = (code, count) } }

    /// What the stand-in received: each request's path, function and whether it had a token.
    public var requests: [(path: String, function: String?, hadToken: Bool)] { state.read { $0.requests.map { ($0.path, $0.function, $0.hadToken) } } }
}

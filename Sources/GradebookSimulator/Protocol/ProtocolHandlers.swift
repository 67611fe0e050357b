import Hummingbird

/// The protocol's routes: `grades.json`, `auth.txt` and `file_download`.
struct ProtocolHandlers: Sendable {
    let state: SimulatorState
    let links: FileLinks

    static let records: Set<String> = ["sections", "enrollments", "userscores", "asnstats"]

    /// `GET grades.json?record=…`: 401 without valid credentials, 400 for an unknown record or a
    /// missing parameter, 200 with the record or an "Incorrect permission" JSON string.
    func grades(_ request: Request) async throws -> Response {
        let query = Self.query(request)
        let record = query["record"] ?? ""
        let fault = state.begin(kind: Self.records.contains(record) ? record : "other")
        if let early = try await FaultApplier.before(fault) { return early.response() }
        let data = state.data
        guard let account = BasicCredentials(authorization: request.headers[.authorization])?.account(in: data) else {
            return FaultApplier.after(fault, .unauthorized())
        }
        let answer: ProtocolResponse
        switch try GradebookRecords(data: data, viewer: account, links: links).answer(query) {
        case .record(let json): answer = .json(json)
        case .denied(let message): answer = .jsonString(message)
        case .badRequest(let message): answer = .jsonString(message, status: .badRequest)
        }
        return FaultApplier.after(fault, answer)
    }

    /// `GET auth.txt`: 200 `access\n` for valid credentials, 401 otherwise.
    func probe(_ request: Request) async throws -> Response {
        let fault = state.begin(kind: "auth")
        if let early = try await FaultApplier.before(fault) { return early.response() }
        let valid = BasicCredentials(authorization: request.headers[.authorization])?.account(in: state.data) != nil
        return FaultApplier.after(fault, valid ? .text("access\n") : .unauthorized())
    }

    /// `GET file_download?file=…`: a placeholder for a picture, feedback or submitted work the
    /// caller may see. Faults do not apply.
    func download(_ request: Request) -> Response {
        let query = Self.query(request)
        _ = state.begin(kind: "file_download", faultable: false)
        let data = state.data
        guard let account = BasicCredentials(authorization: request.headers[.authorization])?.account(in: data) else {
            return ProtocolResponse.unauthorized().response()
        }
        guard let raw = query["file"], let id = Int(raw) else {
            return ProtocolResponse.jsonString("Missing parameter: file", status: .badRequest).response()
        }
        guard let found = FileDownloads.find(id, in: data) else {
            return ProtocolResponse.jsonString("No such file", status: .notFound).response()
        }
        guard account.role == .staff || found.owner == account.username else {
            return ProtocolResponse.jsonString("Incorrect permission: you may not download file \(id)").response()
        }
        return FileDownloads.placeholder(found).response()
    }

    /// The query parameters (the first value of each name).
    static func query(_ request: Request) -> [String: String] {
        var query: [String: String] = [:]
        for (name, value) in request.uri.queryParameters where query[String(name)] == nil {
            query[String(name)] = String(value)
        }
        return query
    }
}

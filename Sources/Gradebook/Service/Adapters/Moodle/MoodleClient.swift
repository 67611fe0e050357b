import Foundation
import HTTPClient

/// Speaks Moodle's Web Services as Moodle documents them, for one student's token:
/// - `POST {site}/login/token.php` (form `username`, `password`, `service`) trades a username
///   and password for a web-service token once; its errors are `{"error", "errorcode"}`;
/// - every function is `GET {site}/webservice/rest/server.php?wsfunction=...&moodlewsrestformat=json`
///   with the token as `wstoken` (added by ``UpstreamTransport`` and never written anywhere);
/// - a failing function answers **HTTP 200** with `{"exception", "errorcode", "message"}`:
///   `invalidtoken` and `accessexception` are a refused token
///   (``GradebookError/upstreamUnauthorized``), `nopermissiontoviewgrades` is
///   ``GradebookError/permissionDenied``, any other is a source failure naming the error code;
/// - every answer is at most ``maximumAnswerBytes``.
struct MoodleClient: Sendable {
    let transport: UpstreamTransport

    /// The most bytes one function's answer may have.
    static let maximumAnswerBytes = 4 << 20
    static let restPath = "/webservice/rest/server.php"
    static let tokenPath = "/login/token.php"

    /// The error codes that mean the token no longer works for this student.
    static let refusedTokenCodes: Set<String> = ["invalidtoken", "accessexception"]

    /// Calls `function` with `parameters` and decodes its answer.
    func call<T: Decodable>(
        _ type: T.Type, _ function: String, _ parameters: [(String, String)], _ credentials: GradebookCredentials, source: GradebookSource
    ) async throws -> T {
        let url = source.moodle(Self.restPath, query: [("wsfunction", function), ("moodlewsrestformat", "json")] + parameters)
        let reply = try await transport.get(
            url, source: source, credentials: credentials, accept: "application/json", maxBodyBytes: Self.maximumAnswerBytes,
            refused: { Self.exception(in: $0.body).map { Self.refusedTokenCodes.contains($0.errorcode ?? "") } ?? false }
        )
        guard reply.status == 200 else {
            if reply.status == 504 { throw GradebookError.upstreamTimeout(sourceID: source.id, name: source.name) }
            throw GradebookError.upstreamFailed(sourceID: source.id, name: source.name, detail: "Moodle answered \(reply.status) to \(function)")
        }
        if let exception = Self.exception(in: reply.body) {
            let code = Self.safe(exception.errorcode)
            if Self.refusedTokenCodes.contains(code) { throw GradebookError.upstreamUnauthorized(sourceID: source.id, name: source.name) }
            if code == "nopermissiontoviewgrades" { throw GradebookError.permissionDenied(sourceID: source.id, name: source.name) }
            throw GradebookError.upstreamFailed(sourceID: source.id, name: source.name, detail: "Moodle's \(function) failed with \(code)")
        }
        do {
            return try JSONDecoder().decode(type, from: reply.body)
        } catch {
            throw GradebookError.upstreamFailed(sourceID: source.id, name: source.name, detail: "Moodle's \(function) answer is not the documented JSON")
        }
    }

    /// Trades a username and password for a token of the source's service, once.
    func token(username: String, password: String, caller: UpstreamCaller, source: GradebookSource) async throws -> String {
        let service = source.moodleService ?? GradebookSource.defaultMoodleService
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        let form = [("username", username), ("password", password), ("service", service)]
            .map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
        let request = OutboundRequest(
            method: .post, url: source.moodle(Self.tokenPath),
            headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"], body: Data(form.utf8),
            timeout: transport.timeout, followRedirects: false, maxResponseBodySize: 64 << 10
        )
        let reply = try await transport.presenting(
            request, source: source, credentials: GradebookCredentials(username: username, password: password, caller: caller),
            refused: { (try? JSONDecoder().decode(MoodleRecords.TokenAnswer.self, from: $0.body))?.errorcode == "invalidlogin" }
        )
        guard let answer = try? JSONDecoder().decode(MoodleRecords.TokenAnswer.self, from: reply.body) else {
            throw GradebookError.upstreamFailed(sourceID: source.id, name: source.name, detail: "Moodle's token endpoint answered \(reply.status) without its JSON")
        }
        if let token = answer.token, Self.isToken(token) { return token }
        switch Self.safe(answer.errorcode) {
        case "invalidlogin": throw GradebookError.upstreamUnauthorized(sourceID: source.id, name: source.name)
        case "servicenotavailable", "enablewsdescription":
            throw GradebookError.signInRefused(sourceID: source.id, name: source.name, reason: .serviceNotAvailable)
        case "sitemaintenance": throw GradebookError.signInRefused(sourceID: source.id, name: source.name, reason: .siteMaintenance)
        case "passwordisexpired": throw GradebookError.signInRefused(sourceID: source.id, name: source.name, reason: .passwordExpired)
        case let code:
            throw GradebookError.upstreamFailed(sourceID: source.id, name: source.name, detail: "Moodle refused the sign-in with \(code)")
        }
    }

    /// Moodle's exception object, when the answer is one.
    static func exception(in body: Data) -> MoodleRecords.Exception? {
        guard body.first == UInt8(ascii: "{") else { return nil }
        return try? JSONDecoder().decode(MoodleRecords.Exception.self, from: body)
    }

    /// A web-service token as Moodle issues them (32 hex digits; letters and digits, 16 to 128).
    static func isToken(_ text: String) -> Bool {
        (16...128).contains(text.utf8.count) && text.unicodeScalars.allSatisfy { $0.isASCII && CharacterSet.alphanumerics.contains($0) }
    }

    /// An error code fit to repeat in a message: letters, digits and `_`, at most 60; never the
    /// upstream's free text.
    static func safe(_ code: String?) -> String {
        let kept = (code ?? "").unicodeScalars.filter { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_") }
        let text = String(String.UnicodeScalarView(kept.prefix(60)))
        return text.isEmpty ? "an unnamed error" : text
    }
}

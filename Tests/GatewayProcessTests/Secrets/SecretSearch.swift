import Foundation
import GRDB
import TestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One secret value a session handled, with the byte forms it could take in a log line, a
/// database page or a JSON column: the text itself, percent-encoded (URL and form styles),
/// JSON-escaped, base64 (standard and url-safe) of the text and, for values that are
/// themselves base64 of bytes (webhook secrets, Web Push keys, vault and VAPID keys), the raw
/// bytes and their hex.
struct Secret: Sendable {
    let name: String
    let value: String
    /// Every form to look for, by a label naming the form.
    let forms: [(label: String, bytes: Data)]
    /// Short numeric secrets (a 6-digit code) match only where no digit is next to them.
    let digitsOnly: Bool

    init(_ name: String, _ value: String, encodedBytes: Data? = nil, extraForms: [(String, Data)] = []) {
        self.name = name
        self.value = value
        digitsOnly = value.allSatisfy(\.isASCII) && value.allSatisfy(\.isNumber) && value.count < 12
        var forms: [(String, Data)] = [("text", Data(value.utf8))]
        func add(_ label: String, _ text: String?) {
            guard let text, !forms.contains(where: { $0.1 == Data(text.utf8) }) else { return }
            forms.append((label, Data(text.utf8)))
        }
        add("percent-encoded", value.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        add("percent-encoded query", value.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed))
        add("form-encoded", value.addingPercentEncoding(withAllowedCharacters: Self.formAllowed)?.replacingOccurrences(of: "%20", with: "+"))
        add("JSON-escaped", Self.jsonEscaped(value, asciiOnly: false))
        add("JSON-escaped (ASCII)", Self.jsonEscaped(value, asciiOnly: true))
        if !digitsOnly {
            add("base64", Data(value.utf8).base64EncodedString())
            add("base64url", Self.base64url(Data(value.utf8)))
        }
        if let encodedBytes, encodedBytes.count >= 8 {
            forms.append(("raw bytes", encodedBytes))
            add("hex", encodedBytes.map { String(format: "%02x", $0) }.joined())
            add("HEX", encodedBytes.map { String(format: "%02X", $0) }.joined())
            add("base64 of the bytes", encodedBytes.base64EncodedString())
            add("base64url of the bytes", Self.base64url(encodedBytes))
        }
        for (label, bytes) in extraForms where !forms.contains(where: { $0.1 == bytes }) { forms.append((label, bytes)) }
        self.forms = forms
    }

    static let formAllowed: CharacterSet = {
        var set = CharacterSet.alphanumerics
        set.insert(charactersIn: "-._* ")
        return set
    }()

    static func base64url(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Bytes of base64 or base64url text (padding optional).
    static func decodeBase64(_ text: String) -> Data? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard)
    }

    /// The text as it appears inside a JSON string (without the quotes).
    static func jsonEscaped(_ value: String, asciiOnly: Bool) -> String? {
        guard let data = try? JSONSerialization.data(withJSONObject: [value], options: [.fragmentsAllowed]),
              var text = String(data: data, encoding: .utf8) else { return nil }
        text = String(text.dropFirst(2).dropLast(2))
        guard asciiOnly else { return text }
        return text.unicodeScalars.map { $0.isASCII ? String($0) : String(format: "\\u%04x", $0.value) }.joined()
    }

    /// The labels of the forms `haystack` holds.
    func found(in haystack: Data) -> [String] {
        forms.compactMap { form in Self.occurs(form.bytes, in: haystack, digitBoundaries: digitsOnly) ? form.label : nil }
    }

    static func occurs(_ needle: Data, in haystack: Data, digitBoundaries: Bool) -> Bool {
        var start = haystack.startIndex
        while let range = haystack.range(of: needle, in: start..<haystack.endIndex) {
            guard digitBoundaries else { return true }
            let before = range.lowerBound > haystack.startIndex ? haystack[range.lowerBound - 1] : nil
            let after = range.upperBound < haystack.endIndex ? haystack[range.upperBound] : nil
            let isDigit = { (byte: UInt8?) in byte.map { $0 >= 48 && $0 <= 57 } ?? false }
            if !isDigit(before) && !isDigit(after) { return true }
            start = range.lowerBound + 1
        }
        return false
    }
}

/// Where secrets were found: "<secret> (<form>) in <place>".
struct SecretFindings: Sendable {
    private(set) var lines: [String] = []
    /// Places searched, for the record.
    private(set) var places: [String] = []

    mutating func search(_ secrets: [Secret], in data: Data, place: String) {
        places.append(place)
        for secret in secrets {
            for label in secret.found(in: data) { lines.append("\(secret.name) (\(label)) in \(place)") }
        }
    }

    /// Every value of every table, read through SQLite (a value that spills over pages is
    /// contiguous here, where a byte search of the file could miss it). Returns the rows read
    /// from `jobs`, whose `args` and `errors` are also searched as decoded JSON strings.
    mutating func searchTables(_ secrets: [Secret], databasePath: String) throws -> Int {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: databasePath, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
            var jobRows = 0
            for table in tables {
                let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                let rows = try Row.fetchCursor(db, sql: "SELECT * FROM \(quoted)")
                var place: [String: Data] = [:]
                while let row = try rows.next() {
                    if table == "jobs" { jobRows += 1 }
                    for (column, value) in row {
                        let bytes: Data
                        switch value.storage {
                        case .string(let text): bytes = Data(text.utf8)
                        case .blob(let blob): bytes = blob
                        default: continue
                        }
                        place["\(table).\(column)", default: Data()].append(bytes)
                        place["\(table).\(column)"]!.append(0)
                        if table == "jobs", column == "args" || column == "errors" {
                            place["jobs.\(column) (decoded JSON strings)", default: Data()].append(Self.jsonStrings(bytes))
                        }
                    }
                }
                for (name, data) in place.sorted(by: { $0.key < $1.key }) {
                    search(secrets, in: data, place: "table column \(name)")
                }
            }
            return jobRows
        }
    }

    /// Every string in a JSON document, keys included, NUL-separated.
    static func jsonStrings(_ data: Data) -> Data {
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else { return Data() }
        var out = Data()
        func walk(_ value: Any) {
            switch value {
            case let text as String: out.append(Data(text.utf8)); out.append(0)
            case let array as [Any]: array.forEach(walk)
            case let dictionary as [String: Any]:
                for (key, item) in dictionary { out.append(Data(key.utf8)); out.append(0); walk(item) }
            default: break
            }
        }
        walk(object)
        return out
    }
}

/// A `gateway serve` child whose log (standard error) and standard output go to files, at the
/// level asked for. (``ServingGateway`` discards both and logs only errors.)
final class LoggingGateway: @unchecked Sendable {
    let process = TestProcess()
    let port: Int
    let logFile: URL
    let outputFile: URL
    private let watchdog: Watchdog

    init(arguments: [String], directory: URL, logLevel: String = "trace", environment: [String: String] = [:], lifetime: TimeInterval = 180) throws {
        let portFile = directory.appendingPathComponent("port-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: portFile) }
        logFile = directory.appendingPathComponent("gateway-\(UUID().uuidString).log")
        outputFile = directory.appendingPathComponent("gateway-\(UUID().uuidString).out")
        FileManager.default.createFile(atPath: logFile.path, contents: nil)
        FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        let log = try FileHandle(forWritingTo: logFile), output = try FileHandle(forWritingTo: outputFile)
        defer { try? log.close(); try? output.close() }
        process.executableURL = GatewayBinary.url
        process.arguments = ["serve", "--host", "127.0.0.1", "--port", "0", "--port-file", portFile, "--log-level", logLevel] + arguments
        // Nothing from this test process's environment configures the child but what is given.
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("GATEWAY_") }
        env.merge(environment) { _, new in new }
        process.environment = env
        process.standardOutput = output
        process.standardError = log
        try process.run()
        watchdog = Watchdog(process, seconds: lifetime)
        guard let found = GatewayBinary.port(writtenTo: portFile, by: process, within: 60) else {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            watchdog.cancel()
            let log = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
            throw ServingGateway.NotServing(description: "gateway serve did not report a port: \(log.suffix(2000))")
        }
        port = found
    }

    var log: Data { (try? Data(contentsOf: logFile)) ?? Data() }
    var output: Data { (try? Data(contentsOf: outputFile)) ?? Data() }

    /// SIGTERM, then waits for the exit.
    @discardableResult
    func terminate() -> Int32 {
        defer { watchdog.cancel() }
        return process.terminateAndWait()
    }

    /// SIGKILL: no shutdown at all.
    func kill9() {
        process.killAndWait()
        watchdog.cancel()
    }
}

/// An HTTP client for a child gateway (URLSession, nothing cached, no cookies).
struct ChildClient: Sendable {
    struct Reply: Sendable {
        let status: Int
        let headers: [String: String]
        let body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
        var object: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
        func header(_ name: String) -> String? { headers.first { $0.key.lowercased() == name.lowercased() }?.value }
    }

    let port: Int
    let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = 30
        return URLSession(configuration: configuration)
    }()

    func send(_ method: String, _ path: String, json: String? = nil, form: String? = nil, token: String? = nil, headers: [String: String] = [:]) async throws -> Reply {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.timeoutInterval = 30
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let json {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(json.utf8)
        }
        if let form {
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(form.utf8)
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw ServingGateway.NotServing(description: "no HTTP answer for \(method) \(path)") }
        var fields: [String: String] = [:]
        for (key, value) in http.allHeaderFields { fields["\(key)"] = "\(value)" }
        return Reply(status: http.statusCode, headers: fields, body: data)
    }

    static func basic(_ user: String, _ password: String) -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// A JSON string literal for `value` (quotes included).
    static func quoted(_ value: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]), as: UTF8.self)
    }

    /// `value` percent-encoded for a form body or a query.
    static func formValue(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    }
}

extension LoggingGateway {
    /// Starts one with its blocking wait for the port on a Dispatch thread (see ``ServingGateway/started(arguments:environment:lifetime:startTimeout:)``).
    static func started(
        arguments: [String], directory: URL, logLevel: String = "trace", environment: [String: String] = [:], lifetime: TimeInterval = 180
    ) async throws -> LoggingGateway {
        try await Drill.offThread {
            try LoggingGateway(arguments: arguments, directory: directory, logLevel: logLevel, environment: environment, lifetime: lifetime)
        }
    }
}


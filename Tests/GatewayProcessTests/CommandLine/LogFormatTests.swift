import Foundation
import Testing
import TestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What an operator's collector reads: `gateway serve` in each `--log-format`, every line of its
/// stdout and stderr parsed (a warning, the demo's notice, access lines for answers and errors,
/// the shutdown), a refused start in the same format, and `--version`.
@Suite("Log formats and the version, from the outside", .serialized)
struct LogFormatTests {
    /// One parsed line: its fields by name.
    typealias Fields = [String: String]

    /// A strict logfmt reader: `key=value` pairs separated by one space, a value bare (no space,
    /// `=` or `"`) or quoted with `\"`, `\\`, `\n`, `\r`, `\t` and `\uXXXX` escapes. Nil when the
    /// line is not that.
    static func logfmt(_ line: Substring) -> Fields? {
        var fields: Fields = [:]
        var rest = line[...]
        while !rest.isEmpty {
            guard let equals = rest.firstIndex(of: "=") else { return nil }
            let key = String(rest[..<equals])
            guard !key.isEmpty, !key.contains(" "), !key.contains("\"") else { return nil }
            rest = rest[rest.index(after: equals)...]
            var value = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                var closed = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if character == "\"" { closed = true; break }
                    if character == "\\" {
                        guard let escaped = rest.first else { return nil }
                        rest = rest.dropFirst()
                        switch escaped {
                        case "n": value += "\n"
                        case "r": value += "\r"
                        case "t": value += "\t"
                        case "\"", "\\": value.append(escaped)
                        case "u":
                            guard let code = UInt32(String(rest.prefix(4)), radix: 16), let scalar = Unicode.Scalar(code) else { return nil }
                            value.unicodeScalars.append(scalar)
                            rest = rest.dropFirst(4)
                        default: return nil
                        }
                    } else {
                        value.append(character)
                    }
                }
                guard closed else { return nil }
            } else {
                let end = rest.firstIndex(of: " ") ?? rest.endIndex
                value = String(rest[..<end])
                guard !value.contains("\""), !value.contains("=") else { return nil }
                rest = rest[end...]
            }
            guard fields.updateValue(value, forKey: key) == nil else { return nil }
            if rest.first == " " {
                rest = rest.dropFirst()
                guard !rest.isEmpty else { return nil }
            } else if !rest.isEmpty {
                return nil
            }
        }
        return fields
    }

    static func json(_ line: Substring) -> Fields? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
        return object.mapValues { value in (value as? String) ?? String(describing: value) }
    }

    /// `2026-11-28T21:59:20.135Z info campus-gateway: k=v ... [Source] message`, for people (a
    /// value may hold spaces; logfmt is the format for parsers).
    static let textLine = try! NSRegularExpression(
        pattern: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (trace|debug|info|notice|warning|error|critical) [a-z.-]+:( [^ =]+=.*)? \[[A-Za-z]+\] .+$"#
    )

    static func request(_ port: Int, _ method: String, _ path: String, body: String? = nil) async {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.timeoutInterval = 10
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "content-type")
        }
        _ = try? await URLSession.shared.data(for: request)
    }

    @Test(arguments: ["text", "logfmt", "json"])
    func everyLineOfARunningGatewayParses(format: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("log-format-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let gateway = try await ServingGateway.started(
            arguments: ["--demo", "--database", folder.appendingPathComponent("demo.sqlite").path, "--log-level", "info", "--log-format", format],
            environment: ["GATEWAY_REQUIRE_HTTPX": "1"], lifetime: 120, output: folder.appendingPathComponent("output")
        )
        #expect(await gateway.waitUntilServing())
        await Self.request(gateway.port, "GET", "/healthz")
        await Self.request(gateway.port, "GET", "/v1/me")  // 401
        await Self.request(gateway.port, "POST", "/v1/auth/token", body: #"{"username": "student", "password": "#)  // 400
        await Self.request(gateway.port, "GET", "/v1/registration/classes?q=%22quoted%20words%22&limit=1")
        await Self.request(gateway.port, "GET", "/no%20such%22place")  // 404
        #expect(gateway.terminate() == 0)

        let stdout = try String(contentsOf: folder.appendingPathComponent("output/stdout"), encoding: .utf8)
        let stderr = try String(contentsOf: folder.appendingPathComponent("output/stderr"), encoding: .utf8)
        var lines = stderr.split(separator: "\n")
        // The text format's demo notice is for a person (a title and one line per account); the
        // other formats write it as one line of their own.
        if format != "text" { lines += stdout.split(separator: "\n") }
        #expect(lines.count > 10, "\(stderr)")
        var parsed: [Fields] = []
        for line in lines {
            switch format {
            case "text":
                let range = NSRange(line.startIndex..., in: line)
                #expect(Self.textLine.firstMatch(in: String(line), range: range) != nil, "not a text line: \(line)")
            case "logfmt":
                let fields = Self.logfmt(line)
                #expect(fields != nil, "not logfmt: \(line)")
                parsed += fields.map { [$0] } ?? []
            default:
                let fields = Self.json(line)
                #expect(fields != nil, "not a JSON object: \(line)")
                parsed += fields.map { [$0] } ?? []
            }
        }
        guard format != "text" else {
            #expect(stderr.contains("GATEWAY_REQUIRE_HTTPX is not a setting"))
            #expect(stderr.contains("status=401") && stderr.contains("status=400") && stderr.contains("status=404"))
            return
        }
        for fields in parsed {
            for key in ["ts", "level", "msg", "logger"] { #expect(fields[key] != nil, "\(key) missing in \(fields)") }
        }
        let requests = parsed.filter { $0["msg"] == "request" }
        #expect(Set(requests.compactMap { $0["status"] }).isSuperset(of: ["200", "400", "401", "404"]), "\(requests)")
        let incomplete = requests.filter { ($0["request_id"] ?? "").isEmpty || $0["method"] == nil || $0["path"] == nil || $0["status"] == nil }
        #expect(incomplete.isEmpty, "access lines without their fields: \(incomplete)")
        #expect(!requests.contains { ($0["path"] ?? "").contains("quoted") }, "the access line leaves out query strings")
        #expect(parsed.contains { $0["level"] == "warning" && ($0["msg"] ?? "").contains("GATEWAY_REQUIRE_HTTPX") })
        let notice = try #require(parsed.first { ($0["msg"] ?? "").hasPrefix("demo accounts") })
        #expect(notice["accounts"]?.contains("student") == true)
        #expect(parsed.contains { $0["msg"] == "serving" && $0["version"] != nil })
        #expect(!stderr.contains("\"password\""), "passwords only in the notice on stdout")
    }

    @Test(arguments: ["logfmt", "json"])
    func aRefusedStartIsOneLineOfTheFormat(format: String) async throws {
        let refused = try await GatewayBinary.run(["serve", "--log-format", format, "--port", "99999"])
        #expect(refused.status != 0)
        let lines = refused.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(refused.stderr)")
        let fields = try #require(lines.first.flatMap { format == "json" ? Self.json($0) : Self.logfmt($0) }, "\(refused.stderr)")
        #expect(fields["level"] == "critical" && (fields["msg"] ?? "").contains("port"), "\(fields)")
        let unknown = try await GatewayBinary.run(["serve", "--log-format", "yaml"])
        #expect(unknown.status != 0 && unknown.stderr.contains("--log-format is text, logfmt or json"), "\(unknown.stderr)")
    }

    @Test func versionNamesTheReleaseTheCommitAndSwift() async throws {
        let outcome = try await GatewayBinary.run(["--version"])
        #expect(outcome.status == 0)
        let line = outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(line.hasPrefix("campus-gateway 0.1.0 ("), "\(line)")
        #expect(line.contains("Swift 6"))
        // Built from this checkout: the commit its HEAD names.
        let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        if FileManager.default.fileExists(atPath: checkout.appendingPathComponent(".git/HEAD").path) {
            #expect(line.range(of: #"commit [0-9a-f]{12}"#, options: .regularExpression) != nil, "\(line)")
        }
        let recorded = try await GatewayBinary.run(["--version"], environment: ["GATEWAY_BUILD_COMMIT": "0123456789abcdef0123456789abcdef01234567"])
        #expect(recorded.stdout.contains("commit 0123456789ab"))
    }
}

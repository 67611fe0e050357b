import Foundation
import Testing

/// Static checks of `deploy/nginx.conf.example`, the reference proxy configuration: its access
/// log must not record query strings (SDSU `GET /registration/...?password=...`), and `/metrics`
/// must be kept internal under every path that reaches it.
@Suite("Reference nginx configuration")
struct DeployConfigTests {
    private static let path = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("deploy/nginx.conf.example").path

    /// The configuration without comments, as one string (directives may span lines).
    private static func directives() throws -> String {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? "" }
            .joined(separator: "\n")
    }

    /// `;`-terminated statements whose first word is `name`, whitespace collapsed.
    private static func statements(_ name: String, in config: String) -> [String] {
        config.split(whereSeparator: { $0 == ";" || $0 == "{" || $0 == "}" })
            .map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
            .filter { $0 == name || $0.hasPrefix(name + " ") }
    }

    /// The nginx variables (`$name`) used in `text`.
    private static func variables(in text: String) -> [String] {
        var result: [String] = []
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$") {
            let name = rest[rest.index(after: dollar)...].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            result.append(String(name))
            rest = rest[rest.index(after: dollar)...]
        }
        return result
    }

    @Test func accessLogFormatHasNoQueryString() throws {
        let config = try Self.directives()
        let formats = Self.statements("log_format", in: config)
        try #require(!formats.isEmpty, "the example must define its own log_format")
        let forbidden: Set<String> = ["request", "request_uri", "args", "query_string", "is_args", "http_referer"]
        var formatNames: [String] = []
        for format in formats {
            let words = format.split(separator: " ")
            try #require(words.count >= 3)
            formatNames.append(String(words[1]))
            let used = Self.variables(in: format)
            #expect(used.contains("uri"))
            #expect(used.allSatisfy { !forbidden.contains($0) && !$0.hasPrefix("arg_") }, "query-bearing variable in \(format)")
        }
        // Every access log uses one of those formats; none falls back to "combined" ($request).
        let logs = Self.statements("access_log", in: config)
        try #require(!logs.isEmpty, "the example must set access_log")
        for log in logs {
            let words = log.split(separator: " ").map(String.init)
            #expect(words.count >= 3 && formatNames.contains(words[2]) || words.dropFirst().first == "off", "\(log)")
        }
    }

    /// Every answer over TLS carries `Strict-Transport-Security`, errors included (`always`),
    /// and plain HTTP only redirects.
    @Test func httpsIsStrict() throws {
        let config = try Self.directives()
        let headers = Self.statements("add_header", in: config)
        #expect(headers.contains { $0.hasPrefix("add_header Strict-Transport-Security \"max-age=") && $0.hasSuffix(" always") }, "\(headers)")
        let returns = Self.statements("return", in: config)
        #expect(returns.contains { $0.hasPrefix("return 301 https://") })
    }

    @Test func metricsLocationCoversEverySubpath() throws {
        let config = try Self.directives()
        let locations = Self.statements("location", in: config)
        #expect(locations.contains("location ^~ /metrics"))
        #expect(!locations.contains("location = /metrics"))
    }
}

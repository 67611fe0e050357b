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
            #expect(used.contains("uri") || used.contains("gateway_log_path"), "the format logs the path")
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
    /// A calendar feed's path is its secret (`/calendar/{token}.ics`). The gateway redacts it in
    /// its own log, so the proxy's log must not write it either: every format logs the path
    /// through a map that replaces what follows `/calendar/`, never `$uri` itself.
    @Test func calendarFeedTokensNeverReachTheAccessLog() throws {
        let config = try Self.directives()
        for format in Self.statements("log_format", in: config) {
            let used = Self.variables(in: format)
            #expect(!used.contains("uri") && !used.contains("document_uri") && !used.contains("request_filename"), "the raw path in \(format)")
        }
        let maps = try #require(config.range(of: "map $uri $gateway_log_path"), "a map of $uri to $gateway_log_path")
        let body = config[maps.upperBound...].drop { $0 != "{" }.dropFirst().prefix { $0 != "}" }
        let entries = body.split(separator: ";").map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }.filter { !$0.isEmpty }
        let calendar = try #require(entries.first { $0.hasPrefix("~^/calendar/") }, "\(entries)")
        #expect(!calendar.contains("$"), "the feed's path is replaced by a constant: \(calendar)")
        #expect(entries.contains("default $uri"), "\(entries)")
        // Every access log writes a format (none the built-in "combined", which logs $request).
        let names = Self.statements("log_format", in: config).map { String($0.split(separator: " ")[1]) }
        for log in Self.statements("access_log", in: config) {
            let words = log.split(separator: " ").map(String.init)
            #expect(words.dropFirst().first == "off" || (words.count >= 3 && names.contains(words[2])), "\(log)")
        }
    }

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

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

/// Review 4 (issue 47), finding 9: `deploy/kubernetes` ships NetworkPolicies (only the ingress
/// controller reaches the web pods; only the gateway's pods reach PostgreSQL), and the trusted
/// proxies are the controller's own addresses, not the pod network or a node's pod range.
@Suite("Kubernetes manifests: network policies and trusted proxies")
struct KubernetesDeployConfigTests {
    private static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("deploy/kubernetes")

    /// Every document of every manifest the kustomization applies.
    static func documents() throws -> [[String: YAMLValue]] {
        let kustomization = try MiniYAML.documents(String(contentsOf: folder.appendingPathComponent("kustomization.yaml"), encoding: .utf8))
        let resources = kustomization.first?["resources"]?.list?.compactMap(\.text) ?? []
        #expect(resources.contains("networkpolicy.yaml"), "the kustomization applies the policies: \(resources)")
        return try resources.flatMap { name in
            try MiniYAML.documents(String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8))
        }
    }

    static func policies() throws -> [[String: YAMLValue]] {
        try documents().filter { $0["kind"]?.text == "NetworkPolicy" && $0["apiVersion"]?.text == "networking.k8s.io/v1" }
    }

    /// The `matchLabels` of a selector.
    static func labels(_ selector: YAMLValue?) -> [String: String] {
        (selector?["matchLabels"]?.map ?? [:]).compactMapValues(\.text)
    }

    @Test func onlyTheIngressControllerReachesTheWebPods() throws {
        let docs = try Self.documents()
        let webLabels = try #require(docs.first { $0["kind"]?.text == "Deployment" && $0["metadata"]?["name"]?.text == "campus-gateway-web" })
            .value(at: ["spec", "template", "metadata", "labels"])?.map?.compactMapValues(\.text) ?? [:]
        let policies = try Self.policies()
        let web = try #require(policies.first { policy in
            let selector = Self.labels(policy["spec"]?["podSelector"])
            return !selector.isEmpty && selector.allSatisfy { webLabels[$0.key] == $0.value } && selector["app.kubernetes.io/component"] == "web"
        }, "a NetworkPolicy selecting the web pods (\(webLabels))")
        let spec = try #require(web["spec"])
        #expect(spec["policyTypes"]?.list?.compactMap(\.text).contains("Ingress") == true)
        let rules = spec["ingress"]?.list ?? []
        try #require(!rules.isEmpty, "an ingress rule (none at all would refuse everything, the ingress too)")
        for rule in rules {
            let peers = rule["from"]?.list ?? []
            try #require(!peers.isEmpty, "every rule names its peers (an empty from admits every pod)")
            for peer in peers {
                #expect(peer["ipBlock"] == nil, "no address block: \(peer)")
                #expect(Self.labels(peer["namespaceSelector"]) == ["kubernetes.io/metadata.name": "ingress-nginx"], "\(peer)")
                #expect(Self.labels(peer["podSelector"])["app.kubernetes.io/name"] == "ingress-nginx", "\(peer)")
                #expect(Self.labels(peer["podSelector"])["app.kubernetes.io/component"] == "controller", "\(peer)")
            }
            let ports = (rule["ports"]?.list ?? []).compactMap { $0["port"]?.text }
            #expect(ports == ["8080"], "the gateway's port only: \(ports)")
        }
    }

    @Test func onlyTheGatewaysReachPostgreSQL() throws {
        let policies = try Self.policies()
        let database = try #require(policies.first { Self.labels($0["spec"]?["podSelector"])["app.kubernetes.io/name"] == "postgresql" })
        let spec = try #require(database["spec"])
        #expect(spec["policyTypes"]?.list?.compactMap(\.text).contains("Ingress") == true)
        let rules = spec["ingress"]?.list ?? []
        try #require(!rules.isEmpty)
        for rule in rules {
            let peers = rule["from"]?.list ?? []
            try #require(!peers.isEmpty, "every rule names its peers")
            for peer in peers {
                #expect(peer["ipBlock"] == nil, "\(peer)")
                #expect(Self.labels(peer["podSelector"]) == ["app.kubernetes.io/name": "campus-gateway"], "\(peer)")
                #expect(Self.labels(peer["namespaceSelector"]) == ["kubernetes.io/metadata.name": "campus-gateway"], "\(peer)")
            }
            #expect((rule["ports"]?.list ?? []).compactMap { $0["port"]?.text } == ["5432"])
        }
    }

    /// A node's pod range is a /24 by default (`--node-cidr-mask-size`), the cluster's a /16:
    /// a trusted network that wide holds pods other than the controller.
    @Test func theTrustedProxiesAreNotAPodNetwork() throws {
        let docs = try Self.documents()
        let settings = try #require(docs.first { $0["kind"]?.text == "ConfigMap" && $0["metadata"]?["name"]?.text == "campus-gateway-settings" })
        let value = try #require(settings["data"]?["GATEWAY_TRUSTED_PROXIES"]?.text, "the ConfigMap sets GATEWAY_TRUSTED_PROXIES")
        let items = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        try #require(!items.isEmpty)
        for item in items {
            let parts = item.split(separator: "/", maxSplits: 1)
            let isIPv6 = parts[0].contains(":")
            let prefix = parts.count == 2 ? Int(parts[1]) : (isIPv6 ? 128 : 32)
            let narrowest = isIPv6 ? 121 : 25
            #expect(prefix.map { $0 >= narrowest } == true, "\(item) is as wide as a pod network (at most /\(narrowest - 1) holds other pods)")
        }
        // Nor the pod network the example cluster uses.
        #expect(!items.contains("10.244.0.0/16"))
    }
}

/// A YAML value of the subset the manifests are written in (block mappings and sequences,
/// plain and quoted scalars, comments).
indirect enum YAMLValue: Equatable, CustomStringConvertible {
    case scalar(String)
    case list([YAMLValue])
    case map([String: YAMLValue])

    var text: String? { if case .scalar(let value) = self { value } else { nil } }
    var list: [YAMLValue]? { if case .list(let value) = self { value } else { nil } }
    var map: [String: YAMLValue]? { if case .map(let value) = self { value } else { nil } }
    subscript(key: String) -> YAMLValue? { map?[key] }
    var description: String {
        switch self {
        case .scalar(let value): value
        case .list(let items): "[\(items.map(\.description).joined(separator: ", "))]"
        case .map(let entries): "{\(entries.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))}"
        }
    }
}

extension Dictionary where Key == String, Value == YAMLValue {
    func value(at path: [String]) -> YAMLValue? {
        var current: YAMLValue? = .map(self)
        for key in path { current = current?[key] }
        return current
    }
}

/// Reads the YAML subset `deploy/kubernetes` keeps to (scripts/check-deploy.py reads the same
/// files with PyYAML): indentation-structured mappings and `- ` sequences; no flow collections,
/// anchors or blocks.
enum MiniYAML {
    struct Line { let indent: Int; let text: String }

    static func documents(_ text: String) -> [[String: YAMLValue]] {
        var documents: [[Line]] = [[]]
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(raw)
            if line.hasPrefix("---") { documents.append([]); continue }
            let content = stripComment(line)
            guard !content.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            let indent = content.prefix { $0 == " " }.count
            documents[documents.count - 1].append(Line(indent: indent, text: String(content.dropFirst(indent)).trimmingCharacters(in: .whitespaces)))
        }
        return documents.filter { !$0.isEmpty }.compactMap { lines in
            var index = 0
            return parse(lines, &index, indent: lines[0].indent).map
        }
    }

    static func stripComment(_ line: String) -> String {
        var quote: Character?
        var previous: Character = " "
        for (offset, character) in line.enumerated() {
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "#", previous == " " {
                return String(line.prefix(offset))
            }
            previous = character
        }
        return line
    }

    static func scalar(_ text: String) -> YAMLValue {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.count >= 2, let first = trimmed.first, first == "\"" || first == "'", trimmed.last == first {
            return .scalar(String(trimmed.dropFirst().dropLast()))
        }
        return .scalar(trimmed)
    }

    /// `key: rest` split at the first `: ` (or a trailing `:`), outside quotes.
    static func keyValue(_ text: String) -> (key: String, rest: String)? {
        guard let range = text.range(of: ": ") ?? (text.hasSuffix(":") ? text.index(before: text.endIndex)..<text.endIndex : nil) else { return nil }
        let key = String(text[..<range.lowerBound])
        guard !key.hasPrefix("\""), !key.hasPrefix("'") || key.hasSuffix("'") else { return nil }
        return (key.trimmingCharacters(in: CharacterSet(charactersIn: "\"'")), String(text[range.upperBound...]))
    }

    static func parse(_ lines: [Line], _ index: inout Int, indent: Int) -> YAMLValue {
        guard index < lines.count else { return .scalar("") }
        if lines[index].text.hasPrefix("- ") || lines[index].text == "-" {
            var items: [YAMLValue] = []
            while index < lines.count, lines[index].indent == indent, lines[index].text.hasPrefix("-") {
                let rest = String(lines[index].text.dropFirst()).trimmingCharacters(in: .whitespaces)
                if rest.isEmpty {
                    index += 1
                    items.append(index < lines.count && lines[index].indent > indent ? parse(lines, &index, indent: lines[index].indent) : .scalar(""))
                } else if keyValue(rest) != nil {
                    // A mapping starting on the dash's line: its keys sit two columns further in.
                    var inner = lines
                    inner[index] = Line(indent: indent + 2, text: rest)
                    items.append(parse(inner, &index, indent: indent + 2))
                } else {
                    items.append(scalar(rest))
                    index += 1
                }
            }
            return .list(items)
        }
        var entries: [String: YAMLValue] = [:]
        while index < lines.count, lines[index].indent == indent, !lines[index].text.hasPrefix("- ") {
            guard let (key, rest) = keyValue(lines[index].text) else { index += 1; continue }
            index += 1
            if rest.trimmingCharacters(in: .whitespaces).isEmpty {
                if index < lines.count, lines[index].indent > indent || (lines[index].indent == indent && lines[index].text.hasPrefix("- ")) {
                    entries[key] = parse(lines, &index, indent: lines[index].indent)
                } else {
                    entries[key] = .scalar("")
                }
            } else {
                entries[key] = scalar(rest)
            }
        }
        return .map(entries)
    }
}

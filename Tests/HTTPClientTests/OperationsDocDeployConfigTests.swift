import Foundation
import Testing

/// The multi-instance example of docs/operations.md ("Running N instances", "Behind nginx",
/// "Behind Caddy") must work as written: every upstream a proxy block names is an address and
/// port an instance listens on, and every instance trusts the proxy's address, so that
/// `X-Forwarded-For` is read and the campus does not share one address's limits.
///
/// The instances are the `gateway serve` lines of the section's shell blocks. The proxy's own
/// address is nginx's `proxy_bind`, or the block's "On the proxy host, <address>" comment.
@Suite("docs/operations.md: proxies and instances agree")
struct OperationsDocDeployConfigTests {
    private static let docPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/operations.md").path

    struct CodeBlock {
        var language: String
        var lines: [String]
    }

    struct Instance: CustomStringConvertible {
        var host: String
        var port: String
        var trustedProxies: [String]
        var trustsLoopbackOnly: Bool
        var line: String
        var description: String { line }
    }

    /// The section from `## Running N instances` to the next `## ` heading.
    static func section(_ text: String, heading: String) -> [String] {
        let lines = text.components(separatedBy: "\n")
        guard let start = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == heading }) else { return [] }
        let rest = lines[(start + 1)...]
        let end = rest.firstIndex(where: { $0.hasPrefix("## ") }) ?? lines.endIndex
        return Array(lines[(start + 1)..<end])
    }

    static func codeBlocks(_ lines: [String]) -> [CodeBlock] {
        var blocks: [CodeBlock] = []
        var current: CodeBlock?
        for line in lines {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("```") {
                if let block = current {
                    blocks.append(block)
                    current = nil
                } else {
                    current = CodeBlock(language: String(trimmed.dropFirst(3)), lines: [])
                }
            } else if current != nil {
                current!.lines.append(line)
            }
        }
        return blocks
    }

    static func withoutComment(_ line: String) -> String {
        guard let hash = line.firstIndex(of: "#") else { return line }
        return String(line[..<hash])
    }

    /// `gateway serve` invocations in shell blocks, with their `--host`, `--port` and proxy trust.
    static func instances(_ blocks: [CodeBlock]) -> [Instance] {
        var found: [Instance] = []
        for block in blocks where ["sh", "bash", "shell", ""].contains(block.language) {
            for line in block.lines {
                let words = withoutComment(line).split(whereSeparator: \.isWhitespace).map(String.init)
                guard let at = words.firstIndex(where: { $0 == "gateway" || $0.hasSuffix("/gateway") }),
                      words.count > at + 1, words[at + 1] == "serve" else { continue }
                var options: [String: String] = [:]
                var flags: Set<String> = []
                var index = at + 2
                while index < words.count {
                    let word = words[index]
                    if word.hasPrefix("--"), let equals = word.firstIndex(of: "=") {
                        options[String(word[..<equals])] = String(word[word.index(after: equals)...])
                    } else if word.hasPrefix("--"), index + 1 < words.count, !words[index + 1].hasPrefix("--") {
                        options[word] = words[index + 1]
                        index += 1
                    } else {
                        flags.insert(word)
                    }
                    index += 1
                }
                let trusted = (options["--trusted-proxies"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                found.append(Instance(host: options["--host"] ?? "127.0.0.1", port: options["--port"] ?? "8080",
                                      trustedProxies: trusted.filter { !$0.isEmpty },
                                      trustsLoopbackOnly: flags.contains("--trust-proxy"),
                                      line: line.trimmingCharacters(in: .whitespaces)))
            }
        }
        return found
    }

    /// `host:port` upstreams of an nginx block (`server` lines inside `upstream`) or a Caddy block
    /// (`reverse_proxy` arguments).
    static func upstreams(_ block: CodeBlock) -> [String] {
        var result: [String] = []
        var inUpstream = false
        for raw in block.lines {
            let words = withoutComment(raw).replacingOccurrences(of: ";", with: " ")
                .split(whereSeparator: \.isWhitespace).map(String.init)
            guard let first = words.first else { continue }
            if block.language == "nginx" {
                if first == "upstream" { inUpstream = true; continue }
                if inUpstream && first == "}" { inUpstream = false; continue }
                if inUpstream && first == "server" && words.count > 1 { result.append(words[1]) }
            } else if first == "reverse_proxy" {
                result += words.dropFirst().filter { $0 != "{" && !$0.hasPrefix("/") && !$0.hasPrefix("@") }
                    .map { $0.replacingOccurrences(of: "http://", with: "") }
            }
        }
        return result
    }

    /// The address the proxy connects from: nginx's `proxy_bind`, else the "On the proxy host, X" comment.
    static func proxyAddress(_ block: CodeBlock) -> String? {
        for raw in block.lines {
            let words = withoutComment(raw).replacingOccurrences(of: ";", with: " ").split(whereSeparator: \.isWhitespace)
            if words.first == "proxy_bind", words.count > 1 { return String(words[1]) }
        }
        for raw in block.lines {
            guard let range = raw.range(of: "On the proxy host, ") else { continue }
            var address = raw[range.upperBound...].prefix { $0.isNumber || $0 == "." || $0 == ":" || $0.isHexDigit }
            while let last = address.last, last == "." || last == ":" { address = address.dropLast() }
            if !address.isEmpty { return String(address) }
        }
        return nil
    }

    /// IPv4 only, which is what the example uses: `address` inside `network` (`a.b.c.d/n` or an address).
    static func contains(_ network: String, _ address: String) -> Bool {
        func parse(_ text: Substring) -> UInt32? {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 4 else { return nil }
            var value: UInt32 = 0
            for part in parts {
                guard let byte = UInt8(part) else { return nil }
                value = value << 8 | UInt32(byte)
            }
            return value
        }
        let pieces = network.split(separator: "/", maxSplits: 1)
        guard let base = pieces.first.flatMap(parse), let ip = parse(Substring(address)) else { return false }
        let bits = pieces.count == 2 ? Int(pieces[1]) ?? -1 : 32
        guard (0...32).contains(bits) else { return false }
        let mask: UInt32 = bits == 0 ? 0 : ~UInt32(0) << (32 - bits)
        return base & mask == ip & mask
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// Everything wrong with the example, one line each; empty when it works as written.
    static func problems(in text: String) -> [String] {
        let lines = section(text, heading: "## Running N instances")
        guard !lines.isEmpty else { return ["no \"## Running N instances\" section"] }
        let blocks = codeBlocks(lines)
        let instances = instances(blocks)
        var problems: [String] = []
        if instances.isEmpty { problems.append("no `gateway serve` line in the section's shell blocks") }
        let proxies = blocks.filter { $0.language == "nginx" || $0.language == "caddy" }
        if proxies.count < 2 { problems.append("expected the nginx and the Caddy block, found \(proxies.map(\.language))") }
        for block in proxies {
            let name = block.language
            let upstreams = upstreams(block)
            if upstreams.isEmpty { problems.append("\(name): no upstream") }
            let proxy = proxyAddress(block)
            if proxy == nil {
                problems.append("\(name): the proxy's own address is not given (proxy_bind, or an \"On the proxy host, <address>\" comment)")
            }
            if let proxy, !isLoopback(proxy) {
                for instance in instances where isLoopback(instance.host) {
                    problems.append("\(name): the proxy is at \(proxy), on another host, but `\(instance)` listens on loopback")
                }
            }
            for upstream in upstreams {
                guard let colon = upstream.lastIndex(of: ":") else {
                    problems.append("\(name): upstream \(upstream) has no port")
                    continue
                }
                let host = String(upstream[..<colon]), port = String(upstream[upstream.index(after: colon)...])
                guard let instance = instances.first(where: { $0.host == host && $0.port == port }) else {
                    let listening = instances.map { "\($0.host):\($0.port)" }.joined(separator: ", ")
                    problems.append("\(name): upstream \(upstream) is not an address an instance listens on (\(listening))")
                    continue
                }
                guard let proxy else { continue }
                if isLoopback(proxy) && isLoopback(instance.host) && instance.trustsLoopbackOnly { continue }
                if !instance.trustedProxies.contains(where: { contains($0, proxy) }) {
                    problems.append("\(name): `\(instance)` does not trust the proxy's address \(proxy)"
                                    + (instance.trustsLoopbackOnly ? " (--trust-proxy trusts loopback peers only)" : "")
                                    + "; X-Forwarded-For would be ignored")
                }
            }
        }
        return problems
    }

    @Test func theExampleWorksAsWritten() throws {
        let text = try String(contentsOfFile: Self.docPath, encoding: .utf8)
        let problems = Self.problems(in: text)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// The text this replaced: instances on loopback with --trust-proxy, nginx and Caddy on
    /// 10.0.0.11–13. The check must refuse it, and the half fix (only the host changed) too.
    @Test func theOldTrapIsRefused() throws {
        let text = try String(contentsOfFile: Self.docPath, encoding: .utf8)
        let current = "gateway serve --host 10.0.0.11 --port 8081 --trusted-proxies 10.0.0.5/32 --database-connections 16"
        try #require(text.contains(current), "the example's first instance line changed; update this test")
        // The old text had one instance line for all of them.
        let old = text.components(separatedBy: "\n")
            .filter { !$0.hasPrefix("gateway serve --host 10.0.0.12") && !$0.hasPrefix("gateway serve --host 10.0.0.13") }
            .joined(separator: "\n")
            .replacingOccurrences(of: current, with: "gateway serve --host 127.0.0.1 --port 8081 --trust-proxy --database-connections 16")
        let oldProblems = Self.problems(in: old)
        #expect(oldProblems.contains { $0.contains("is not an address an instance listens on") }, "\(oldProblems)")
        #expect(oldProblems.contains { $0.contains("listens on loopback") }, "\(oldProblems)")

        var halfFixed = text
        for host in ["10.0.0.11", "10.0.0.12", "10.0.0.13"] {
            halfFixed = halfFixed.replacingOccurrences(
                of: "gateway serve --host \(host) --port 8081 --trusted-proxies 10.0.0.5/32",
                with: "gateway serve --host \(host) --port 8081 --trust-proxy")
        }
        let halfProblems = Self.problems(in: halfFixed)
        #expect(halfProblems.contains { $0.contains("does not trust the proxy's address 10.0.0.5") }, "\(halfProblems)")

        let wrongProxy = text.replacingOccurrences(of: "--trusted-proxies 10.0.0.5/32", with: "--trusted-proxies 10.0.0.6/32")
        #expect(!Self.problems(in: wrongProxy).isEmpty)
        let loopback = Self.problems(in: text.replacingOccurrences(of: "--host 10.0.0.11 ", with: "--host 127.0.0.1 "))
        #expect(loopback.contains { $0.contains("10.0.0.11:8081 is not an address") }, "\(loopback)")
        #expect(loopback.contains { $0.contains("listens on loopback") }, "\(loopback)")
    }
}

import Foundation

/// Spans as an OTLP/HTTP JSON exporter sent them (`resourceSpans[].scopeSpans[].spans[]`).
struct ExportedSpans {
    struct Span {
        let traceID: String
        let spanID: String
        let parentSpanID: String
        let name: String
        /// Attribute values as text.
        let attributes: [String: String]
    }

    var spans: [Span] = []
    var serviceNames: Set<String> = []

    init(_ bodies: [Data]) {
        for body in bodies {
            guard let root = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { continue }
            for resource in root["resourceSpans"] as? [[String: Any]] ?? [] {
                for attribute in (resource["resource"] as? [String: Any])?["attributes"] as? [[String: Any]] ?? []
                where attribute["key"] as? String == "service.name" {
                    if let name = Self.text(attribute["value"]) { serviceNames.insert(name) }
                }
                for scope in resource["scopeSpans"] as? [[String: Any]] ?? [] {
                    for span in scope["spans"] as? [[String: Any]] ?? [] {
                        var attributes: [String: String] = [:]
                        for attribute in span["attributes"] as? [[String: Any]] ?? [] {
                            if let key = attribute["key"] as? String { attributes[key] = Self.text(attribute["value"]) }
                        }
                        spans.append(Span(
                            traceID: Self.hex(span["traceId"]), spanID: Self.hex(span["spanId"]), parentSpanID: Self.hex(span["parentSpanId"]),
                            name: span["name"] as? String ?? "", attributes: attributes
                        ))
                    }
                }
            }
        }
    }

    var names: [String] { spans.map(\.name) }

    /// Whether `span` is `ancestor` or below it, by parent links.
    func descends(_ span: Span, from ancestor: Span) -> Bool {
        var current: Span? = span
        var steps = 0
        while let node = current, steps < 50 {
            if node.spanID == ancestor.spanID { return true }
            current = spans.first { $0.spanID == node.parentSpanID && !node.parentSpanID.isEmpty }
            steps += 1
        }
        return false
    }

    /// An OTLP JSON AnyValue as text.
    static func text(_ value: Any?) -> String? {
        guard let value = value as? [String: Any] else { return nil }
        for key in ["stringValue", "intValue", "boolValue", "doubleValue"] {
            if let found = value[key] { return "\(found)" }
        }
        return nil
    }

    /// Ids are lower-case hex in OTLP JSON (some encoders write base64: turned into hex here).
    static func hex(_ value: Any?) -> String {
        guard let text = value as? String, !text.isEmpty else { return "" }
        if text.allSatisfy(\.isHexDigit) { return text.lowercased() }
        guard let data = Data(base64Encoded: text) else { return text }
        return data.map { String(format: "%02x", $0) }.joined()
    }
}

public import Foundation

/// Why a JSON body (or a part of one, such as a job's `args`) did not decode, in words a client
/// can act on, with the field it concerns.
///
/// Foundation's decoder reports a number that fits no field (past 64 bits, a fraction for an
/// integer) as invalid JSON with no field. When the text is valid JSON after all, the
/// explanation names the first such number instead, as a value out of range.
public struct DecodingExplanation: Sendable, Equatable {
    public let detail: String
    /// The field, as `a.b.[2].c`, when one is to blame.
    public let field: String?
    /// The JSON is well formed and of the right shape, but a value is out of range: a
    /// validation failure (422) rather than a malformed request (400).
    public let outOfRange: Bool

    /// Explains `error`, thrown while decoding `data`; `root` prefixes field names (`args`).
    public init(_ error: any Error, decoding data: Data, under root: String? = nil) {
        func path(_ keys: [any CodingKey]) -> String {
            ((root.map { [$0] } ?? []) + keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }).joined(separator: ".")
        }
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            self.init(detail: "Missing field '\(path(context.codingPath + [key]))'.", field: path(context.codingPath + [key]))
        case DecodingError.typeMismatch(let type, let context):
            self.init(detail: "Field '\(path(context.codingPath))' should be \(Self.noun(type)).", field: path(context.codingPath))
        case DecodingError.valueNotFound(let type, let context):
            self.init(detail: "Field '\(path(context.codingPath))' should be \(Self.noun(type)), not null.", field: path(context.codingPath))
        case DecodingError.dataCorrupted(let context) where !context.codingPath.isEmpty:
            self.init(detail: "Field '\(path(context.codingPath))' is invalid: \(context.debugDescription)", field: path(context.codingPath))
        default:
            if let keys = Self.firstUnfittingNumber(in: data) {
                let field = path(keys)
                self.init(
                    detail: "Field '\(field)' is a number out of range: integers here have at most 64 bits, and fractions only where the field takes them.",
                    field: field, outOfRange: true
                )
            } else {
                self.init(detail: root.map { "'\($0)' is not valid JSON." } ?? "The body is not valid JSON.", field: root)
            }
        }
    }

    init(detail: String, field: String?, outOfRange: Bool = false) {
        self.detail = detail
        self.field = field
        self.outOfRange = outOfRange
    }

    static func noun(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int64.Type, is Int32.Type: "an integer"
        case is Double.Type, is Float.Type: "a number"
        case is Bool.Type: "a boolean"
        default: "\(type)"
        }
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int?
        init(_ string: String) { stringValue = string }
        init(_ index: Int) { stringValue = "\(index)"; intValue = index }
        init?(stringValue: String) { self.init(stringValue) }
        init?(intValue: Int) { self.init(intValue) }
    }

    /// Where the first number past 64 bits (or, failing that, with a fraction) sits, when
    /// `data` is otherwise valid JSON; nil otherwise. Foundation's parser refuses some such
    /// numbers outright (`1e400`), so the numbers are found in the text first, and the one to
    /// blame is swapped for a marker string that a parse then locates.
    static func firstUnfittingNumber(in data: Data) -> [any CodingKey]? {
        let bytes = [UInt8](data)
        var numbers: [(range: Range<Int>, outOfRange: Bool)] = []
        var index = 0, inString = false
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                if byte == UInt8(ascii: "\\") { index += 1 } else if byte == UInt8(ascii: "\"") { inString = false }
                index += 1
                continue
            }
            if byte == UInt8(ascii: "\"") { inString = true; index += 1; continue }
            guard byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { index += 1; continue }
            let start = index
            while index < bytes.count, "0123456789+-.eE".utf8.contains(bytes[index]) { index += 1 }
            let token = String(decoding: bytes[start..<index], as: UTF8.self)
            if token.contains(where: { ".eE".contains($0) }) {
                guard let value = Double(token) else { continue }
                if !value.isFinite || value.magnitude >= 9.2e18 { numbers.append((start..<index, true)) } else if value.rounded() != value { numbers.append((start..<index, false)) }
            } else if Int64(token) == nil {
                numbers.append((start..<index, true))
            }
        }
        guard let blamed = numbers.first(where: \.outOfRange) ?? numbers.first else { return nil }
        let marker = "\u{1}unfitting-number"
        var marked = bytes
        marked.replaceSubrange(blamed.range, with: Array("\"\\u0001unfitting-number\"".utf8))
        guard let value = try? JSONSerialization.jsonObject(with: Data(marked), options: [.fragmentsAllowed]) else { return nil }
        func walk(_ value: Any, _ keys: [any CodingKey]) -> [any CodingKey]? {
            switch value {
            case let object as [String: Any]:
                for (key, item) in object { if let found = walk(item, keys + [Key(key)]) { return found } }
            case let array as [Any]:
                for (offset, item) in array.enumerated() { if let found = walk(item, keys + [Key(offset)]) { return found } }
            case let text as String where text == marker:
                return keys
            default:
                break
            }
            return nil
        }
        return walk(value, [])
    }
}

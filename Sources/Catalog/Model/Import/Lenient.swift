import Foundation

/// Decodes a `T` without failing the enclosing array: a malformed element becomes the reason
/// it failed, so one bad row is reported instead of rejecting the whole file.
struct Lenient<T: Decodable>: Decodable {
    let value: Result<T, RowError>

    public init(from decoder: any Decoder) throws {
        let depth = decoder.codingPath.count
        do {
            value = .success(try T(from: decoder))
        } catch let error as DecodingError {
            value = .failure(RowError(Self.describe(error, depth: depth)))
        } catch {
            value = .failure(RowError("\(error)"))
        }
    }

    /// Describes the error with a field path relative to the row (`meetings[0].start`).
    static func describe(_ error: DecodingError, depth: Int) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            var text = ""
            for key in keys.dropFirst(depth) {
                if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
            }
            return text
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing field '\(path(context.codingPath + [key]))'"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "field '\(path(context.codingPath))' has the wrong type"
        case .dataCorrupted(let context): return "field '\(path(context.codingPath))' is invalid"
        @unknown default: return "malformed row"
        }
    }
}

/// A string that a source may also write as a number (`"units": 3` or `"units": "3.0"`).
public struct LooseString: Decodable, Sendable {
    let value: String

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            value = text
        } else if let whole = try? container.decode(Int64.self) {
            value = String(whole)
        } else {
            value = String(try container.decode(Double.self))
        }
    }
}

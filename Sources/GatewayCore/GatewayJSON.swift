public import Foundation

/// JSON coding used by every v1 route: ISO 8601 dates, sorted keys for stable output.
public enum GatewayJSON {
    /// One configured encoder for responses: `JSONEncoder` may encode from many threads at once
    /// (it copies its options per call), and making one costs more than a small response's
    /// encoding. Configure a fresh ``encoder()`` instead of changing this one.
    public static let sharedEncoder = encoder()

    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ISO8601.string(from: date))
        }
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}

/// ISO 8601 with fractional seconds dropped: the one timestamp format of the API.
public enum ISO8601 {
    public static func string(from date: Date) -> String {
        date.formatted(.iso8601)
    }
}

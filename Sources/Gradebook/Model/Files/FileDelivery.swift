import Foundation

/// How a file fetched from an upstream gradebook is handed to the caller: only images (PNG,
/// JPEG, GIF, WebP), PDF and plain text are shown inline with their own type; anything else
/// (HTML, SVG, scripts, archives, a missing type) is an `application/octet-stream` attachment,
/// so an upstream file can never run as a page of the gateway's origin. The routes add
/// `X-Content-Type-Options: nosniff` and a sandboxing `Content-Security-Policy` to every file.
public struct FileDelivery: Sendable, Equatable {
    /// The `Content-Type` to answer.
    public let contentType: String
    /// The `Content-Disposition` to answer.
    public let disposition: String
    public var inline: Bool { disposition.hasPrefix("inline") }

    /// The media types served inline.
    public static let inlineTypes: Set<String> = ["image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf", "text/plain"]

    /// The largest file passed through (10 MiB); a larger one is an upstream failure.
    public static let defaultMaximumBytes = 10 << 20

    /// - Parameters:
    ///   - upstreamType: the upstream's `Content-Type`, parameters included.
    ///   - upstreamDisposition: the upstream's `Content-Disposition`, for its file name.
    ///   - fallbackName: the name when the upstream gives none (`file-32550`).
    public init(upstreamType: String?, upstreamDisposition: String?, fallbackName: String) {
        let parts = (upstreamType ?? "").split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        let media = parts.first?.lowercased() ?? ""
        let name = Self.fileName(in: upstreamDisposition) ?? Self.safeName(fallbackName) ?? "file"
        if Self.inlineTypes.contains(media) {
            var type = media
            if media == "text/plain", let charset = parts.dropFirst().compactMap(Self.charset).first { type += "; charset=\(charset)" }
            contentType = type
            disposition = "inline; filename=\"\(name)\""
        } else {
            contentType = "application/octet-stream"
            disposition = "attachment; filename=\"\(name)\""
        }
    }

    /// `charset=utf-8` → `utf-8`, when it is a plain token.
    static func charset(_ parameter: String) -> String? {
        let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        guard pair.count == 2, pair[0].lowercased() == "charset" else { return nil }
        let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased()
        return safeName(value).flatMap { $0.count <= 40 ? $0 : nil }
    }

    /// The `filename` of a `Content-Disposition`, made safe.
    static func fileName(in disposition: String?) -> String? {
        guard let disposition else { return nil }
        for parameter in disposition.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == "filename" else { continue }
            return safeName(pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
        }
        return nil
    }

    /// Letters, digits, `.`, `-` and `_` only (others become `_`), at most 100, not starting
    /// with a dot; nil when nothing is left.
    static func safeName(_ raw: String) -> String? {
        let kept = String(raw.unicodeScalars.prefix(100).map { scalar -> Character in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "._-".unicodeScalars.contains(scalar))
                ? Character(scalar) : "_"
        })
        let trimmed = String(kept.drop { $0 == "." || $0 == "_" })
        return trimmed.isEmpty ? nil : trimmed
    }
}

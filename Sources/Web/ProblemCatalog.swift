public import Foundation

/// What each problem type of the v1 API means and what a client should do about it, read from
/// `Reference/problems.json`: the text behind every `/problems/{type}` link.
public struct ProblemCatalog: Sendable {
    /// One problem type as the reference describes it.
    public struct Entry: Sendable, Decodable, Equatable {
        /// The last segment of the type URI (`class-full` for `/problems/class-full`).
        public let type: String
        public let title: String
        /// The status the gateway answers with; `statuses` lists every one when there are several.
        public let status: Int
        public let statuses: [Int]?
        /// When the gateway answers with it, and which extension members it carries.
        public let meaning: String
        /// What the app should do or tell the student or operator.
        public let action: String
    }

    private struct Document: Decodable {
        let problems: [Entry]
    }

    /// Every described type, in the file's order (sorted by type).
    public let entries: [Entry]

    public init(entries: [Entry]) {
        self.entries = entries
    }

    /// Reads the catalog from `problems.json`'s bytes; a type must be lower-case words joined
    /// by hyphens, and may be described once.
    public init(json: Data) throws {
        let entries = try JSONDecoder().decode(Document.self, from: json).problems
        var seen = Set<String>()
        for entry in entries {
            guard Self.isTypeName(entry.type) else { throw CatalogError.badType(entry.type) }
            guard seen.insert(entry.type).inserted else { throw CatalogError.duplicate(entry.type) }
        }
        self.entries = entries
    }

    public subscript(type: String) -> Entry? { entries.first { $0.type == type } }

    /// Whether `name` can be a problem type: 1 to 64 of `a-z`, `0-9` and inner hyphens.
    public static func isTypeName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && !name.hasPrefix("-") && !name.hasSuffix("-")
            && name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }

    public enum CatalogError: Error, CustomStringConvertible {
        case badType(String)
        case duplicate(String)

        public var description: String {
            switch self {
            case .badType(let type): return "problems.json: '\(type)' is not a problem type name"
            case .duplicate(let type): return "problems.json: '\(type)' is described twice"
            }
        }
    }
}

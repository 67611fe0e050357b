import Foundation

/// How list-valued class fields are kept in one text column, the same on every backend.
package enum CatalogText {
    /// Instructors are stored joined by "; ".
    package static func splitInstructors(_ stored: String) -> [String] {
        stored.isEmpty ? [] : stored.components(separatedBy: "; ")
    }

    package static func joinInstructors(_ names: [String]) -> String {
        names.map { $0.replacingOccurrences(of: ";", with: ",") }.joined(separator: "; ")
    }

    /// Linked section codes are stored comma-separated (``ClassLimits`` keeps commas out of them).
    package static func splitLinks(_ stored: String) -> [String] {
        stored.isEmpty ? [] : stored.components(separatedBy: ",")
    }

    package static func joinLinks(_ links: [String]) -> String {
        links.joined(separator: ",")
    }
}

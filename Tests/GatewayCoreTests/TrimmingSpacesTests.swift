import Foundation
import GatewayCore
import Testing

/// `trimmingSpaces()` is a shortcut for Foundation's `trimmingCharacters(in: .whitespaces)`:
/// it must give the same answer for every text, including Unicode spaces and newlines at the ends.
@Suite("Trimming spaces")
struct TrimmingSpacesTests {
    /// Characters at the edge of the rule: spaces Foundation trims (space, tab, no-break space,
    /// em space, ideographic space), ones it keeps (newlines, zero-width space, letters, digits).
    static let alphabet: [Character] = [" ", "\t", "\u{00A0}", "\u{2003}", "\u{3000}", "\n", "\r", "\u{200B}", "a", "Z", "7", "é", ":", "-"]

    @Test func agreesWithFoundationOnEveryShortText() {
        var texts: [String] = [""]
        for character in Self.alphabet { texts.append(String(character)) }
        for first in Self.alphabet {
            for last in Self.alphabet {
                texts.append("\(first)\(last)")
                texts.append("\(first)17:30\(last)")
                texts.append("\(first) x \(last)")
            }
        }
        for text in texts {
            #expect(text.trimmingSpaces() == text.trimmingCharacters(in: .whitespaces), "\(text.unicodeScalars.map { $0.value })")
            let sub = text[...]
            #expect(sub.trimmingSpaces() == text.trimmingCharacters(in: .whitespaces))
        }
    }
}

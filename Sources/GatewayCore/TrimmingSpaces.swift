import Foundation

extension StringProtocol {
    /// The text without leading and trailing spaces: the same result as
    /// `trimmingCharacters(in: .whitespaces)` (Unicode's space separators and tab), without
    /// building a character set when neither end can be one, which is nearly every query value
    /// a request brings. Parsing a request's few parameters through Foundation's character
    /// sets cost more than the catalog lookup they fed (see docs/benchmarks.md).
    public func trimmingSpaces() -> String {
        let bytes = utf8
        guard let first = bytes.first else { return "" }
        let last = bytes[bytes.index(bytes.endIndex, offsetBy: -1)]
        // An ASCII byte other than space and tab is never trimmed; anything else may be.
        func kept(_ byte: UInt8) -> Bool { byte < 0x80 && byte != 0x20 && byte != 0x09 }
        return kept(first) && kept(last) ? String(self) : trimmingCharacters(in: .whitespaces)
    }
}

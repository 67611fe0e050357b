import Foundation

/// The key file's text: one key per line, `<keyId> <base64 key>`, the current key first, then
/// previous keys; a final newline. Nothing else (no comments), so the first line is the current key.
enum VaultKeyFileFormat {
    /// Why a key file's text was refused: a line number (1-based, 0 for the whole file) and a
    /// fixed reason. Never any of the file's content.
    struct Problem: Error, Equatable {
        var line: Int
        var reason: String
    }

    static func render(_ ring: VaultKeyRing) -> String {
        ring.keys.map { "\($0.id) \($0.base64Encoded())\n" }.joined()
    }

    static func parse(_ text: String) throws(Problem) -> VaultKeyRing {
        // "\r\n" is one Character in Swift: both line ends split.
        var lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        if lines.last == "" { lines.removeLast() }
        var keys: [VaultKey] = []
        for (index, line) in lines.enumerated() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count == 2, VaultKey.isWellFormedID(fields[0]) else {
                throw Problem(line: index + 1, reason: "expected `<keyId> <base64 key>`")
            }
            guard let bytes = VaultBase64.decodeLenient(String(fields[1])), let key = VaultKey(bytes: bytes) else {
                throw Problem(line: index + 1, reason: "the key is not base64 of 32 bytes")
            }
            guard key.id == fields[0] else {
                throw Problem(line: index + 1, reason: "the key id does not match the key (the file is damaged)")
            }
            keys.append(key)
        }
        guard let current = keys.first else { throw Problem(line: 0, reason: "the file holds no key") }
        return VaultKeyRing(current: current, previous: Array(keys.dropFirst()))
    }
}

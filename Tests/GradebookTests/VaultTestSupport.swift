import Foundation
import Gradebook

/// A table of sealed values in memory, with hooks that play a concurrent writer.
actor InMemoryVaultRows: VaultRows {
    private(set) var rows: [VaultContext: String] = [:]
    private var replaceCalls = 0
    /// Called before each compare-and-swap with the context and the call's number (1-based); a
    /// value it returns is written to that row first, as if a user changed it meanwhile.
    private let interfere: (@Sendable (VaultContext, Int) -> String?)?
    /// Rows inserted just before the first compare-and-swap, as if a server added them meanwhile.
    private var insertDuringRotation: [VaultContext: String]

    init(_ rows: [VaultContext: String], insertDuringRotation: [VaultContext: String] = [:],
         interfere: (@Sendable (VaultContext, Int) -> String?)? = nil) {
        self.rows = rows
        self.insertDuringRotation = insertDuringRotation
        self.interfere = interfere
    }

    func sealedValues() async throws -> [(context: VaultContext, sealed: String)] {
        rows.sorted { $0.key.rowID < $1.key.rowID }.map { (context: $0.key, sealed: $0.value) }
    }

    func replace(context: VaultContext, expected: String, with sealed: String) async throws -> Bool {
        replaceCalls += 1
        rows.merge(insertDuringRotation) { old, _ in old }
        insertDuringRotation = [:]
        if let changed = interfere?(context, replaceCalls) { rows[context] = changed }
        guard rows[context] == expected else { return false }
        rows[context] = sealed
        return true
    }

    func forget(context: VaultContext, expected: String) async throws -> Bool {
        guard rows[context] == expected else { return false }
        rows[context] = nil
        return true
    }
}

/// A fresh directory under the system's temporary directory, removed by `remove()`.
struct VaultTemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("vault-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { "\(path)/\(name)" }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

enum VaultTestKeys {
    /// 32 random bytes and the strings they could leak as.
    static func material() -> (bytes: [UInt8], encodings: [String]) {
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255) }
        let base64 = Data(bytes).base64EncodedString()
        let url = base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        return (bytes, [base64, String(base64.dropLast()), url, hex, String(base64.prefix(16)), String(hex.prefix(24))])
    }
}

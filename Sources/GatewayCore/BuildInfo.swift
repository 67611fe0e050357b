import Foundation

/// What is running: the release version, the git commit the binary was built from (when it runs
/// from a checkout's build folder, or an image recorded it), and the Swift it was compiled with.
/// `gateway --version` prints it, `/metrics` has it as `gateway_build_info`, and the start-up
/// line carries it.
public struct BuildInfo: Sendable, Equatable {
    /// The release, as the API description's `info.version` says.
    public static let version = "0.1.0"

    public let version: String
    /// The full commit hash, or nil when no checkout or recorded commit is found.
    public let commit: String?
    public let swift: String

    /// The running binary's: the commit from `GATEWAY_BUILD_COMMIT` (an image sets it at build
    /// time), else from the `.git` of the checkout the executable was built in.
    public static let current = BuildInfo(
        version: version,
        commit: recordedCommit(ProcessInfo.processInfo.environment["GATEWAY_BUILD_COMMIT"])
            ?? checkoutCommit(near: Bundle.main.executableURL?.resolvingSymlinksInPath()),
        swift: swiftVersion
    )

    public init(version: String, commit: String?, swift: String) {
        self.version = version
        self.commit = commit
        self.swift = swift
    }

    /// `0.1.0 (commit 1a2b3c4d5e6f, Swift 6.3)`.
    public var description: String {
        "\(version) (" + (commit.map { "commit \($0.prefix(12)), " } ?? "") + "Swift \(swift))"
    }

    /// The compiler's language version, to the minor.
    static var swiftVersion: String {
        #if swift(>=7.0)
        return "7"
        #elseif swift(>=6.5)
        return "6.5"
        #elseif swift(>=6.4)
        return "6.4"
        #elseif swift(>=6.3)
        return "6.3"
        #elseif swift(>=6.2)
        return "6.2"
        #else
        return "6"
        #endif
    }

    /// A commit hash as given, when it is one (40 or 64 hex digits; abbreviated ones of 7+ too).
    static func recordedCommit(_ raw: String?) -> String? {
        guard let raw = raw?.trimmingCharacters(in: .whitespacesAndNewlines), (7...64).contains(raw.count),
            raw.allSatisfy(\.isHexDigit)
        else { return nil }
        return raw.lowercased()
    }

    /// The commit `HEAD` names in the nearest `.git` folder at or above `executable`'s folder
    /// (six levels at most: `.build/<triple>/debug/gateway` sits four below the checkout).
    /// Reads the files git keeps (`HEAD`, `refs/...`, `packed-refs`); runs no program.
    static func checkoutCommit(near executable: URL?) -> String? {
        guard var folder = executable?.deletingLastPathComponent() else { return nil }
        for _ in 0..<6 {
            let git = folder.appendingPathComponent(".git")
            if let head = try? String(contentsOf: git.appendingPathComponent("HEAD"), encoding: .utf8) {
                return resolve(head: head, in: git)
            }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }

    static func resolve(head: String, in git: URL) -> String? {
        let head = head.trimmingCharacters(in: .whitespacesAndNewlines)
        guard head.hasPrefix("ref: ") else { return recordedCommit(head) }
        let ref = String(head.dropFirst(5))
        guard !ref.contains(".."), ref.hasPrefix("refs/") else { return nil }
        if let loose = try? String(contentsOf: git.appendingPathComponent(ref), encoding: .utf8) {
            return recordedCommit(loose)
        }
        guard let packed = try? String(contentsOf: git.appendingPathComponent("packed-refs"), encoding: .utf8) else { return nil }
        for line in packed.split(separator: "\n") where line.hasSuffix(" " + ref) {
            return recordedCommit(line.split(separator: " ").first.map(String.init))
        }
        return nil
    }
}

public import Foundation
import Crypto

/// The static files of the student web app (`/`) and the operator console (`/admin/`), read
/// once from the `Public` folder of this target's resource bundle and kept in memory with their
/// content type and an ETag (a hash of the bytes), so they are served without touching the disk.
public struct WebAssets: Sendable {
    /// One file as it is served.
    public struct Asset: Sendable {
        public let path: String
        public let data: Data
        public let contentType: String
        /// A strong validator: `"` + the first 32 hex digits of the SHA-256 of the bytes + `"`.
        public let etag: String
    }

    /// Files by their path inside `Public` (`index.html`, `assets/app.js`).
    public let files: [String: Asset]
    /// Where they were read from; nil when no copy of the files was found.
    public let root: URL?

    public init(files: [String: Asset], root: URL?) {
        self.files = files
        self.root = root
    }

    public subscript(path: String) -> Asset? { files[path] }

    /// Loads every file under `root` (hidden files aside).
    public static func load(from root: URL) throws -> WebAssets {
        var files: [String: Asset] = [:]
        let base = root.standardizedFileURL.resolvingSymlinksInPath()
        guard let walker = FileManager.default.enumerator(
            at: base, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles]
        ) else { return WebAssets(files: [:], root: base) }
        let prefix = base.path.hasSuffix("/") ? base.path : base.path + "/"
        for case let url as URL in walker {
            let resolved = url.standardizedFileURL.resolvingSymlinksInPath()
            guard (try? resolved.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                resolved.path.hasPrefix(prefix)
            else { continue }
            let relative = String(resolved.path.dropFirst(prefix.count))
            let data = try Data(contentsOf: resolved)
            files[relative] = Asset(path: relative, data: data, contentType: contentType(of: relative), etag: etag(of: data))
        }
        return WebAssets(files: files, root: base)
    }

    /// The installed files: the `campus-gateway_Web.resources` bundle beside the executable (where
    /// SwiftPM puts it, and where an install copies it), else this source tree's `Public` folder
    /// (a development checkout). Without either the web pages answer 404; the API is unaffected.
    /// (Not `Bundle.module`, whose accessor stops the process when the bundle is missing.)
    ///
    /// `folder` is `Public` (the app and the console) or `Reference` (the API reference and the
    /// problem pages); a copy counts only with its `index.html`.
    public static func installed(_ folder: String = "Public") -> WebAssets {
        var candidates: [URL] = []
        let bundleName = "campus-gateway_Web.resources"
        candidates.append(Bundle.main.bundleURL.appendingPathComponent(bundleName).appendingPathComponent(folder))
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            candidates.append(executable.deletingLastPathComponent().appendingPathComponent(bundleName).appendingPathComponent(folder))
        }
        candidates.append(URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(folder))
        for candidate in candidates {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), isDirectory.boolValue,
                let assets = try? load(from: candidate), assets["index.html"] != nil
            else { continue }
            return assets
        }
        return WebAssets(files: [:], root: nil)
    }

    /// The content type for a file name's extension; unknown ones are `application/octet-stream`.
    public static func contentType(of path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard name.contains(".") else { return "text/plain; charset=utf-8" }  // LICENSE, VERSION
        let ext = name.split(separator: ".").last.map { $0.lowercased() } ?? ""
        switch ext {
        case "md": return "text/markdown; charset=utf-8"
        case "html": return "text/html; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "json": return "application/json; charset=utf-8"
        case "webmanifest": return "application/manifest+json; charset=utf-8"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        case "ico": return "image/x-icon"
        case "txt": return "text/plain; charset=utf-8"
        default: return "application/octet-stream"
        }
    }

    static func etag(of data: Data) -> String {
        let digest = SHA256.hash(data: data)
        let hex = digest.map { String(format: "%02x", $0) }.joined()
        return "\"\(hex.prefix(32))\""
    }

    /// Whether an `If-None-Match` header value names `etag` (weak comparison, RFC 9110 13.1.2):
    /// `*`, or a comma-separated list of entity tags, each maybe `W/`.
    public static func matches(ifNoneMatch header: String, etag: String) -> Bool {
        let trimmedHeader = header.trimmingCharacters(in: .whitespaces)
        if trimmedHeader == "*" { return true }
        let bare = etag.hasPrefix("W/") ? String(etag.dropFirst(2)) : etag
        for candidate in trimmedHeader.split(separator: ",") {
            var tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag.hasPrefix("W/") { tag = String(tag.dropFirst(2)) }
            if tag == bare { return true }
        }
        return false
    }
}

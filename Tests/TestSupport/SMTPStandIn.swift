public import Foundation

/// The SMTP stand-in (Tests/PushTests/Fixtures/smtp_standin.py, aiosmtpd) as a child process
/// on 127.0.0.1: STARTTLS with a self-signed certificate made with openssl for this run
/// (`subjectAltName=IP:127.0.0.1`), optional AUTH, every accepted message recorded as JSON, and
/// a reply file that makes it answer 4xx or 5xx instead.
public final class SMTPStandIn: @unchecked Sendable {
    /// The package root: three levels above this file (Tests/TestSupport/<file>).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    /// One message as the server received it.
    public struct Message: Sendable {
        public var mailFrom: String
        public var recipients: [String]
        /// The raw message (headers and body, CRLF), dot-stuffing removed.
        public var data: String
        public var tls: Bool
        public var authenticated: Bool

        /// The header fields, unfolded, in order.
        public var headers: [(name: String, value: String)] {
            let head = data.components(separatedBy: "\r\n\r\n").first ?? ""
            let unfolded = head.replacingOccurrences(of: "\r\n ", with: " ").replacingOccurrences(of: "\r\n\t", with: " ")
            return unfolded.components(separatedBy: "\r\n").compactMap { line in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
        }

        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        /// The body, quoted-printable decoded as UTF-8, with LF line ends.
        public var text: String {
            guard let range = data.range(of: "\r\n\r\n") else { return "" }
            let body = String(data[range.upperBound...]).replacingOccurrences(of: "=\r\n", with: "")
            var bytes: [UInt8] = []
            var index = body.utf8.startIndex
            let utf8 = body.utf8
            while index < utf8.endIndex {
                let byte = utf8[index]
                if byte == UInt8(ascii: "="), let end = utf8.index(index, offsetBy: 3, limitedBy: utf8.endIndex),
                   let value = UInt8(String(decoding: utf8[utf8.index(after: index)..<end], as: UTF8.self), radix: 16) {
                    bytes.append(value)
                    index = end
                } else {
                    bytes.append(byte)
                    index = utf8.index(after: index)
                }
            }
            return String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        }
    }

    public let port: Int
    /// The certificate to trust (`GATEWAY_SMTP_CA_FILE`); nil without STARTTLS.
    public let caFile: String?
    public let directory: URL
    private let mailDirectory: URL
    private let process: TestProcess
    private let lifeline = Pipe()

    /// `smtp://127.0.0.1:<port>`.
    public var url: URL { URL(string: "smtp://127.0.0.1:\(port)")! }

    /// Starts the server; throws ``Unavailable`` (saying how to fix it) without the venv's aiosmtpd.
    public init(starttls: Bool = true, username: String? = nil, password: String? = nil) throws {
        let python = Self.root.appendingPathComponent(".venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path), try Self.run(python.path, ["-c", "import aiosmtpd"]).status == 0 else {
            throw Unavailable(description: "the venv lacks aiosmtpd: run `bash scripts/install-deps.sh`")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("smtp-standin-\(UUID().uuidString)")
        mailDirectory = directory.appendingPathComponent("mail")
        try FileManager.default.createDirectory(at: mailDirectory, withIntermediateDirectories: true)
        var arguments = [
            Self.root.appendingPathComponent("Tests/PushTests/Fixtures/smtp_standin.py").path,
            "--port-file", directory.appendingPathComponent("port").path, "--mail-dir", mailDirectory.path,
        ]
        if starttls {
            let cert = directory.appendingPathComponent("cert.pem").path, key = directory.appendingPathComponent("key.pem").path
            let openssl = try Self.run("/usr/bin/env", [
                "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            ])
            guard openssl.status == 0 else { throw Unavailable(description: "openssl failed: \(openssl.output)") }
            arguments += ["--cert", cert, "--key", key]
            caFile = cert
        } else {
            arguments.append("--no-starttls")
            caFile = nil
        }
        if let username, let password { arguments += ["--user", username, "--password", password] }
        process = TestProcess()
        process.executableURL = python
        process.arguments = arguments
        process.standardInput = lifeline
        process.standardOutput = FileHandle.nullDevice
        let stderr = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: stderr.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: stderr)
        try process.run()
        // Wait for the condition (the port file), bounded so a broken stand-in fails the test.
        let deadline = Date().addingTimeInterval(30)
        var found: Int?
        while found == nil, Date() < deadline, process.isRunning {
            found = (try? String(contentsOf: directory.appendingPathComponent("port"), encoding: .utf8))
                .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if found == nil { Thread.sleep(forTimeInterval: 0.02) }
        }
        guard let found else {
            let output = (try? String(contentsOf: stderr, encoding: .utf8)) ?? ""
            Self.end(process, lifeline: lifeline)
            throw Unavailable(description: "the SMTP stand-in did not start: \(output)")
        }
        port = found
    }

    deinit { stop() }

    /// Makes the server answer the end of every message with `line` (such as `451 4.3.0 Later`)
    /// and keep nothing; nil goes back to accepting.
    public func reply(with line: String?) throws {
        let file = mailDirectory.appendingPathComponent("reply")
        if let line {
            try Data((line + "\n").utf8).write(to: file, options: .atomic)
        } else {
            try? FileManager.default.removeItem(at: file)
        }
    }

    /// Every message accepted so far, in arrival order.
    public func messages() -> [Message] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: mailDirectory.path)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
        return names.compactMap { name in
            guard let data = try? Data(contentsOf: mailDirectory.appendingPathComponent(name)),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
            return Message(
                mailFrom: object["mail_from"] as? String ?? "", recipients: object["rcpt_tos"] as? [String] ?? [],
                data: object["data"] as? String ?? "", tls: object["tls"] as? Bool ?? false, authenticated: object["authenticated"] as? Bool ?? false
            )
        }
    }

    /// Closes the lifeline, ends the process and removes its folder.
    public func stop() {
        Self.end(process, lifeline: lifeline)
        try? FileManager.default.removeItem(at: directory)
    }

    private static func end(_ process: TestProcess, lifeline: Pipe) {
        try? lifeline.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

extension SMTPStandIn {
    /// Starts the server as ``init(starttls:username:password:)`` does, its blocking start
    /// (the Python process and the wait for its port) on a Dispatch thread, never on one of
    /// Swift's concurrency threads.
    public static func started(starttls: Bool = true, username: String? = nil, password: String? = nil) async throws -> SMTPStandIn {
        try await Drill.offThread { try SMTPStandIn(starttls: starttls, username: username, password: password) }
    }
}

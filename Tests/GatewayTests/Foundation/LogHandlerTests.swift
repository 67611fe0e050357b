import Foundation
@testable import GatewayApp
import GatewayCore
import GatewayHTTP
import HTTPTypes
import HummingbirdTesting
import Logging
import Testing

/// The service's log handler: its line format, order under concurrency, and that errors are
/// written before `log` returns while other lines wait for the batch.
@Suite("Log handler")
struct LogHandlerTests {
    static func file() throws -> (URL, Int32) {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("log-\(UUID().uuidString).txt")
        let fd = open(url.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        return (url, fd)
    }

    @Test func linesHaveTheDocumentedShapeAndErrorsAreWrittenAtOnce() throws {
        let (url, fd) = try Self.file()
        defer { close(fd); try? FileManager.default.removeItem(at: url) }
        // A long interval: only an error or a flush writes.
        let output = BufferedLogOutput(fileDescriptor: fd, interval: 3600)
        var logger = Logger(label: "campus-gateway") { GatewayLogHandler(label: $0, level: .info, output: output) }
        logger[metadataKey: "request_id"] = "r-1"
        logger.debug("not at this level")
        logger.info("request", metadata: ["status": "200", "method": "GET"])
        #expect(try String(contentsOf: url, encoding: .utf8).isEmpty, "info lines wait for the batch")
        logger.error("boom")
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        let pattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z info campus-gateway: method=GET request_id=r-1 status=200 \[\w+\] request$/
        #expect(lines.first?.wholeMatch(of: pattern) != nil, "\(lines.first ?? "")")
        #expect(lines.last?.hasSuffix("error campus-gateway: request_id=r-1 [GatewayTests] boom") == true, "\(lines.last ?? "")")
    }

    /// An error whose description spans lines and holds quotes, `=` and a backslash stays on
    /// one line in every format; logfmt quotes and escapes it, JSON nests arrays and objects.
    @Test(arguments: LogFormat.allCases)
    func multiLineErrorsStayOnOneLine(format: LogFormat) throws {
        let (url, fd) = try Self.file()
        defer { close(fd); try? FileManager.default.removeItem(at: url) }
        let output = BufferedLogOutput(fileDescriptor: fd, interval: 3600)
        var logger = Logger(label: "campus-gateway") { GatewayLogHandler(label: $0, level: .info, format: format, output: output) }
        logger[metadataKey: "hb.request.id"] = "r-2"
        let error = "DecodingError.dataCorrupted(\n  path: \"a=b\",\n  debugDescription: C:\\tmp\ttab)"
        logger.error("upstream failed:\nsecond line", metadata: ["error": "\(error)", "tags": ["a", "b c"], "peer": ["host": "x y"]])
        let text = try String(contentsOf: url, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
        #expect(lines.count == 1, "\(text)")
        let line = String(try #require(lines.first))
        switch format {
        case .text:
            #expect(line.contains(#"[GatewayTests] upstream failed:\nsecond line"#) && line.contains("request_id=r-2"), "\(line)")
        case .logfmt:
            #expect(line.hasPrefix("ts=") && line.contains(#" level=error msg="upstream failed:\nsecond line" logger=campus-gateway source=GatewayTests"#), "\(line)")
            #expect(line.contains(#"error="DecodingError.dataCorrupted(\n  path: \"a=b\",\n  debugDescription: C:\\tmp\ttab)""#), "\(line)")
            #expect(line.contains(" request_id=r-2"), "\(line)")
        case .json:
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["msg"] as? String == "upstream failed:\nsecond line")
            #expect(object["error"] as? String == error)
            #expect(object["level"] as? String == "error" && object["logger"] as? String == "campus-gateway")
            #expect(object["request_id"] as? String == "r-2")
            #expect(object["tags"] as? [String] == ["a", "b c"])
            #expect((object["peer"] as? [String: String])?["host"] == "x y")
        }
    }

    /// The access line's shortcut writes the same fields in every format.
    @Test(arguments: [LogFormat.logfmt, .json])
    func theAccessLineShortcutSpeaksEveryFormat(format: LogFormat) throws {
        let (url, fd) = try Self.file()
        defer { close(fd); try? FileManager.default.removeItem(at: url) }
        let output = BufferedLogOutput(fileDescriptor: fd, interval: 3600)
        var handler = GatewayLogHandler(label: "campus-gateway", level: .info, format: format, output: output)
        handler[metadataKey: "hb.request.id"] = "r-3"
        #expect(handler.logRequest(sortedFields: ["method": "GET", "ms": "1.25", "path": "/v1/a b", "status": "200"]))
        output.flush()
        let line = try String(contentsOf: url, encoding: .utf8).trimmingCharacters(in: .newlines)
        if format == .json {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
            #expect(object["msg"] == "request" && object["request_id"] == "r-3" && object["path"] == "/v1/a b" && object["status"] == "200")
        } else {
            #expect(line.contains(#" msg=request logger=campus-gateway source=GatewayApp method=GET ms=1.25 path="/v1/a b" request_id=r-3 status=200"#), "\(line)")
        }
    }

    @Test func concurrentLinesAreWholeAndNoneIsLost() async throws {
        let (url, fd) = try Self.file()
        defer { close(fd); try? FileManager.default.removeItem(at: url) }
        // A tiny batch size and limit: the writer thread and the appenders both write.
        let output = BufferedLogOutput(fileDescriptor: fd, interval: 0.01, batchBytes: 512, limitBytes: 4096)
        let logger = Logger(label: "t") { GatewayLogHandler(label: $0, level: .info, output: output) }
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<500 { logger.info("line", metadata: ["task": "\(task)", "n": "\(index)"]) }
                }
            }
        }
        output.flush()
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 4000)
        #expect(lines.allSatisfy { $0.hasSuffix("] line") && $0.contains(" info t: n=") })
        // Each task's lines stay in its order.
        for task in 0..<8 {
            let numbers = lines.filter { $0.contains(" task=\(task) ") }.compactMap { line in
                line.split(separator: " ").first { $0.hasPrefix("n=") }.flatMap { Int($0.dropFirst(2)) }
            }
            #expect(numbers == Array(0..<500))
        }
    }

    /// The access line, written by the handler's shortcut (a logger with no metadata of its
    /// own) or, when the logger carries metadata, the ordinary way with that metadata merged in.
    @Test(arguments: [false, true])
    func theAccessLogHasOneRequestIDAndTheDuration(loggerHasMetadata: Bool) async throws {
        let (url, fd) = try Self.file()
        defer { close(fd); try? FileManager.default.removeItem(at: url) }
        let output = BufferedLogOutput(fileDescriptor: fd, interval: 3600)
        var logger = Logger(label: "campus-gateway") { GatewayLogHandler(label: $0, level: .info, output: output) }
        if loggerHasMetadata { logger[metadataKey: "instance"] = "east-1" }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var config = GatewayConfiguration()
        config.databasePath = directory.appendingPathComponent("gateway.sqlite").path
        config.logLevel = .info
        let app = try GatewayApplication(configuration: config, clock: ManualClock(Date()), logger: logger)
        try await app.makeApplication().test(.router) { client async throws in
            let status = try await client.execute(uri: "/healthz?secret=1", method: .get, headers: [.requestID: "abc-123"]) { $0.status }
            #expect(status == .ok)
        }
        output.flush()
        let line = try #require(try String(contentsOf: url, encoding: .utf8).split(separator: "\n").last { $0.hasSuffix("] request") })
        let instance = loggerHasMetadata ? " instance=east-1" : ""
        #expect(line.contains(" info campus-gateway:\(instance) method=GET ms="), "\(line)")
        #expect(line.hasSuffix(" path=/healthz request_id=abc-123 status=200 [GatewayApp] request"), "\(line)")
        #expect(line.contains(/\sms=\d+\.\d\d\s/), "\(line)")
        #expect(!line.contains("hb.request.id") && !line.contains("secret"), "\(line)")
    }
}

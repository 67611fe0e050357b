import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs the real `gateway` executable built next to the test bundle.
enum GatewayBinary {
    static var url: URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments.first ?? ".").deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("gateway")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("gateway")
    }

    struct Outcome {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// Runs the binary to completion with `stdin` as input.
    static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws -> Outcome {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { _, new in new }
        process.environment = env
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        let stderrData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus,
            stdout: String(decoding: stdoutData, as: UTF8.self),
            stderr: String(decoding: stderrData, as: UTF8.self)
        )
    }

    /// A free TCP port on 127.0.0.1 (bound and released; good enough for tests on loopback).
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return Int(UInt16(bigEndian: addr.sin_port))
    }
}

/// A `gateway serve` child process on a loopback port.
final class ServingGateway: @unchecked Sendable {
    let process = Process()
    let port: Int

    init(arguments: [String], port: Int = GatewayBinary.freePort()) throws {
        self.port = port
        process.executableURL = GatewayBinary.url
        process.arguments = ["serve", "--host", "127.0.0.1", "--port", "\(port)", "--log-level", "error"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// GET a path on the child; nil when it does not answer.
    func get(_ path: String) async -> (Int, String)? {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.timeoutInterval = 2
        guard let (data, response) = try? await URLSession.shared.data(for: request),
            let http = response as? HTTPURLResponse
        else { return nil }
        return (http.statusCode, String(decoding: data, as: UTF8.self))
    }

    /// Waits until `/healthz` answers, up to `seconds`.
    func waitUntilServing(seconds: Double = 30) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let (status, _) = await get("/healthz"), status == 200 { return true }
            if !process.isRunning { return false }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    func terminate() -> Int32 {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }

    func kill9() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

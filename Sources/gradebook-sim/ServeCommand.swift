import ArgumentParser
import Foundation
import GradebookSimulator
import Hummingbird
import HummingbirdTLS
import Logging
import NIOSSL

/// `gradebook-sim serve`: serves the demo data over HTTP, or HTTPS with a certificate and key.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the simulated gradebook until SIGTERM or SIGINT.",
        discussion: "Base URL: http(s)://HOST:PORT/<prefix>/grades.json. Logins are printed at start."
    )

    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on; 0 picks a free one.") var port = 8443
    @Option(name: .customLong("port-file"), help: "Write the listening port to this file once serving.") var portFile: String?
    @Option(name: .customLong("tls-certificate"), help: "PEM certificate chain: serve HTTPS (with --tls-key).") var tlsCertificate: String?
    @Option(name: .customLong("tls-key"), help: "PEM private key of the certificate.") var tlsKey: String?
    @Option(name: .customLong("admin-token"), help: "Bearer token of the _admin routes; without it they are not served.") var adminToken: String?
    @Option(help: "Path the routes are served under, e.g. sim/gradebook (default: the root).") var prefix = ""
    @Option(name: .customLong("canvas-prefix"), help: "Also serve the Canvas stand-in (/api/v1/...) under this path, e.g. canvas; \"/\" for the root.") var canvasPrefix: String?
    @Option(name: .customLong("canvas-page-size"), help: "The most items a Canvas list page holds, whatever per_page asks.") var canvasPageSize = 2
    @Option(name: .customLong("canvas-students"), help: "Canvas students besides the demo's, with tokens bench-token-1... (benchmarks).") var canvasStudents = 0
    @Option(name: .customLong("moodle-prefix"), help: "Also serve the Moodle stand-in (login/token.php, webservice/rest/server.php) under this path, e.g. moodle; \"/\" for the root.") var moodlePrefix: String?
    @Option(name: .customLong("moodle-students"), help: "Moodle students besides the demo's, with tokens benchmoodletoken1... (benchmarks).") var moodleStudents = 0
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.") var logLevel = "info"

    func validate() throws {
        if (tlsCertificate == nil) != (tlsKey == nil) { throw ValidationError("--tls-certificate and --tls-key go together") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard Logger.Level(rawValue: logLevel.lowercased()) != nil else { throw ValidationError("unknown --log-level '\(logLevel)'") }
        if let adminToken, adminToken.count < 8 { throw ValidationError("--admin-token must be at least 8 characters") }
        guard (1...100).contains(canvasPageSize) else { throw ValidationError("--canvas-page-size must be between 1 and 100") }
        guard (0...100_000).contains(canvasStudents) else { throw ValidationError("--canvas-students must be between 0 and 100000") }
        guard (0...100_000).contains(moodleStudents) else { throw ValidationError("--moodle-students must be between 0 and 100000") }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel.lowercased()) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "gradebook-sim")
        let simulator = GradebookSimulator(adminToken: adminToken)
        let router = Router()
        simulator.register(on: router, prefix: prefix)

        let scheme = tlsCertificate == nil ? "http" : "https"
        let mount = prefix.split(separator: "/").joined(separator: "/")
        say("gradebook-sim: base URL \(scheme)://\(host):<port>/\(mount.isEmpty ? "" : mount + "/")grades.json")
        say("Fixed logins (user / password):")
        for line in GradebookSimulator.loginSummary(simulator.data) { say("  " + line) }
        if adminToken != nil { say("Admin routes: /\(mount.isEmpty ? "" : mount + "/")_admin/ (Authorization: Bearer <token>)") }
        if let canvasPrefix {
            let canvas = CanvasSimulator(data: canvasStudents > 0 ? .demo(students: canvasStudents) : .demo, pageSizeCap: canvasPageSize, adminToken: adminToken)
            canvas.register(on: router, prefix: canvasPrefix)
            let canvasMount = canvasPrefix.split(separator: "/").joined(separator: "/")
            say("Canvas stand-in: base URL \(scheme)://\(host):<port>/\(canvasMount) (token demo-canvas-token; \(canvasPageSize) items a page)")
            if adminToken != nil { say("Canvas scores: POST /\(canvasMount.isEmpty ? "" : canvasMount + "/")_admin/canvas/submissions") }
        }

        if let moodlePrefix {
            let moodle = MoodleSimulator(data: .demo(students: moodleStudents), adminToken: adminToken)
            moodle.register(on: router, prefix: moodlePrefix)
            let moodleMount = moodlePrefix.split(separator: "/").joined(separator: "/")
            say("Moodle stand-in: base URL \(scheme)://\(host):<port>/\(moodleMount) (ada / moodle-demo, or token \(MoodleSimData.demoToken))")
            if adminToken != nil { say("Moodle grades: POST /\(moodleMount.isEmpty ? "" : moodleMount + "/")_admin/moodle/grades") }
        }

        let configuration = ApplicationConfiguration(address: .hostname(host, port: port), serverName: "gradebook-sim")
        let onRunning: @Sendable (Int) async -> Void = { [portFile] port in
            logger.notice("listening", metadata: ["port": "\(port)", "scheme": "\(scheme)"])
            say("gradebook-sim: listening on port \(port)")
            if let portFile {
                // Written to a temporary name, then renamed: a reader never sees half a number.
                let partial = portFile + ".partial"
                _ = FileManager.default.createFile(atPath: partial, contents: Data("\(port)\n".utf8))
                _ = rename(partial, portFile)
            }
        }
        if let tlsCertificate, let tlsKey {
            let chain = try NIOSSLCertificate.fromPEMFile(tlsCertificate).map { NIOSSLCertificateSource.certificate($0) }
            var tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: chain, privateKey: .privateKey(try NIOSSLPrivateKey(file: tlsKey, format: .pem))
            )
            tls.minimumTLSVersion = .tlsv12
            let app = Application(
                router: router, server: try .tls(tlsConfiguration: tls), configuration: configuration,
                onServerRunning: { await onRunning(GradebookSimulator.boundPort(of: $0)) }, logger: logger
            )
            try await app.runService()
        } else {
            let app = Application(
                router: router, configuration: configuration,
                onServerRunning: { await onRunning(GradebookSimulator.boundPort(of: $0)) }, logger: logger
            )
            try await app.runService()
        }
    }
}

/// A line on standard output, written at once (`print` is block-buffered when piped to a file).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

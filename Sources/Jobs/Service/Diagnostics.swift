import Logging
import Foundation

/// Built-in job kinds an operator can enqueue (`POST /v1/admin/jobs`) to check the pipeline
/// end to end: `diagnostics.noop` completes, `diagnostics.sleep` sleeps `seconds` (honouring
/// cancellation) and completes, `diagnostics.fail` always throws.
public enum Diagnostics {
    public struct SleepArgs: Codable, Sendable {
        /// 0 to 3600.
        public let seconds: Double
        public init(seconds: Double) { self.seconds = seconds }

        public init(from decoder: any Decoder) throws {
            enum Keys: String, CodingKey { case seconds }
            let container = try decoder.container(keyedBy: Keys.self)
            seconds = try container.decode(Double.self, forKey: .seconds)
            guard seconds.isFinite, (0...3600).contains(seconds) else {
                throw DecodingError.dataCorruptedError(forKey: .seconds, in: container, debugDescription: "must be between 0 and 3600 seconds.")
            }
        }
    }

    public struct FailArgs: Codable, Sendable {
        public let message: String?
        public init(message: String? = nil) { self.message = message }
    }

    public struct NoArgs: Codable, Sendable {
        public init() {}
    }

    /// The error `diagnostics.fail` throws.
    public struct DiagnosticFailure: Error, CustomStringConvertible {
        public let description: String
    }

    public static let kinds = ["diagnostics.noop", "diagnostics.sleep", "diagnostics.fail"]

    /// Registers the three kinds, enqueueable by admins.
    public static func register(in registry: JobRegistry) {
        registry.register(kind: "diagnostics.noop", args: NoArgs.self, adminEnqueueable: true) { _, _ in .complete }
        registry.register(kind: "diagnostics.sleep", args: SleepArgs.self, adminEnqueueable: true) { args, context in
            let seconds = min(3600, max(0, args.seconds))
            context.logger.debug("diagnostics.sleep", metadata: ["seconds": "\(seconds)"])
            try await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
            return .complete
        }
        registry.register(kind: "diagnostics.fail", args: FailArgs.self, adminEnqueueable: true) { args, context in
            throw DiagnosticFailure(description: args.message ?? "diagnostics.fail always fails (attempt \(context.attempt))")
        }
    }
}

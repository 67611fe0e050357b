import CArgon2
import Crypto
public import Foundation
import GatewayCore
import NIOPosix
import Synchronization

/// argon2id password hashing through libargon2.
///
/// Hashing is deliberately slow and memory-hard, so it never runs on an event loop or the
/// cooperative pool: it runs on a small dedicated thread pool, in arrival order.
///
/// The line is bounded as a whole: at most `maxPending` requests wait or run, and a request
/// still waiting after `maxWait` gives up; only then is the caller told the server is busy
/// (503), which keeps a login flood from queueing without bound. A verification of a real
/// account is never refused for its client's address: at registration opening a whole campus
/// arrives from a few NAT addresses, and students with the right password must each get their
/// turn. Address shares (``ClientAdmission``) apply to what is a guess or a sign-up by
/// construction: verifications against the decoy (no such account) and new hashes. Guesses at
/// real accounts are bounded by the sign-in throttle, which reserves each attempt before it
/// reaches this line.
public final class PasswordHasher: Sendable {
    /// argon2id cost parameters. The defaults are OWASP's minimum (m=19 MiB, t=2, p=1).
    public struct Parameters: Sendable, Equatable {
        public var memoryKiB: UInt32
        public var iterations: UInt32
        public var parallelism: UInt32

        public init(memoryKiB: UInt32 = 19_456, iterations: UInt32 = 2, parallelism: UInt32 = 1) {
            self.memoryKiB = memoryKiB
            self.iterations = iterations
            self.parallelism = parallelism
        }

        public static let owasp = Parameters()
    }

    public let parameters: Parameters
    public let maxPending: Int
    /// How long a request may wait for its turn before it is told the server is busy.
    public let maxWait: Duration
    private let pool: NIOThreadPool
    private let pending = Atomic<Int>(0)
    private let verifications = Atomic<Int>(0)
    /// New hashes and decoy verifications waiting or running per client (its address, IPv6 per
    /// /64): one client may hold at most a few places, so a flood of sign-ups or of unknown
    /// names from one address can't fill the line ahead of everyone else.
    public let admission: ClientAdmission
    private let hashes = Atomic<Int>(0)
    /// A real hash of a random password, verified against when the username doesn't exist so
    /// that a missing account costs the same time as a wrong password.
    private let decoy: String

    public init(
        parameters: Parameters = .owasp, threads: Int = max(1, ProcessInfo.processInfo.activeProcessorCount - 1), maxPending: Int = 1024,
        maxWait: Duration = .seconds(30)
    ) {
        self.parameters = parameters
        self.maxPending = maxPending
        self.maxWait = maxWait
        self.admission = ClientAdmission(perClient: max(2, min(8, maxPending / 8)))
        self.pool = NIOThreadPool(numberOfThreads: threads)
        self.pool.start()
        var random = SystemRandomNumberGenerator()
        let decoyPassword = String((0..<24).map { _ in Character(UnicodeScalar(UInt8.random(in: 97...122, using: &random))) })
        self.decoy = (try? Self.hashSync(decoyPassword, parameters: parameters)) ?? ""
    }

    deinit {
        pool.shutdownGracefully { _ in }
    }

    /// The encoded (`$argon2id$v=19$m=...`) hash of `password` with a fresh random salt.
    public func hash(_ password: String, client: String? = nil) async throws -> String {
        let parameters = self.parameters
        hashes.wrappingAdd(1, ordering: .relaxed)
        return try await run(shareOf: client) { try Self.hashSync(password, parameters: parameters) }
    }

    /// Whether `password` matches `encoded`. Pass nil to spend the same time on a missing account.
    public func verify(_ password: String, encoded: String?, client: String? = nil) async throws -> Bool {
        let target = encoded ?? decoy
        verifications.wrappingAdd(1, ordering: .relaxed)
        // A real account's verification waits its turn whatever its address; a decoy's (no such
        // account: a guess) takes a place of its client's share.
        let matches = try await run(shareOf: encoded == nil ? client : nil) { Self.verifySync(password, encoded: target) }
        return encoded != nil && matches
    }

    /// How many hashes (new passwords) this hasher was asked for, for tests.
    public var hashCount: Int { hashes.load(ordering: .relaxed) }

    /// How many verifications this hasher has run (decoys included), for metrics and tests.
    public var verificationCount: Int { verifications.load(ordering: .relaxed) }

    /// Runs `work` on the hashing threads in arrival order; `client`, when given, must have a
    /// place of its share.
    private func run<T: Sendable>(shareOf client: String?, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        if let client, !admission.enter(client) { throw AuthError.busy(retryAfterSeconds: 1) }
        defer { if let client { admission.leave(client) } }
        let waiting = pending.wrappingAdd(1, ordering: .relaxed).newValue
        defer { pending.wrappingSubtract(1, ordering: .relaxed) }
        guard waiting <= maxPending else {
            throw AuthError.busy(retryAfterSeconds: Self.retryAfter(waiting: waiting))
        }
        // The pool's threads take work first in, first out; a request whose turn comes after
        // its wait ran out is not worked (its caller is told, and may come back).
        let deadline = ContinuousClock.now + maxWait
        let answer: T? = try await pool.runIfActive {
            guard ContinuousClock.now <= deadline else { return nil }
            return try work()
        }
        guard let answer else { throw AuthError.busy(retryAfterSeconds: Self.retryAfter(waiting: waiting)) }
        return answer
    }

    /// A hint for when to come back: a few seconds, more the longer the line.
    static func retryAfter(waiting: Int) -> Int { min(30, max(1, waiting / 64)) }

    static func hashSync(_ password: String, parameters: Parameters) throws -> String {
        var salt = [UInt8](repeating: 0, count: 16)
        salt.withUnsafeMutableBytes { buffer in
            var generator = SystemRandomNumberGenerator()
            for i in buffer.indices { buffer[i] = UInt8.random(in: 0...255, using: &generator) }
        }
        let hashLength = 32
        let encodedLength = argon2_encodedlen(
            parameters.iterations, parameters.memoryKiB, parameters.parallelism,
            UInt32(salt.count), UInt32(hashLength), Argon2_id
        )
        var encoded = [CChar](repeating: 0, count: encodedLength)
        let bytes = Array(password.utf8)
        let status = argon2id_hash_encoded(
            parameters.iterations, parameters.memoryKiB, parameters.parallelism,
            bytes, bytes.count, salt, salt.count, hashLength, &encoded, encodedLength
        )
        guard status == ARGON2_OK.rawValue else { throw PasswordHashingError(code: status) }
        return String(decoding: encoded.prefix(while: { $0 != 0 }).map(UInt8.init(bitPattern:)), as: UTF8.self)
    }

    static func verifySync(_ password: String, encoded: String) -> Bool {
        let bytes = Array(password.utf8)
        // argon2id_verify compares the derived hash in constant time.
        return argon2id_verify(encoded, bytes, bytes.count) == ARGON2_OK.rawValue
    }
}

/// libargon2 refused to hash (for example, memory could not be allocated).
public struct PasswordHashingError: Error, CustomStringConvertible {
    public let code: Int32
    public var description: String { "argon2 failed: \(String(cString: argon2_error_message(code)))" }
}

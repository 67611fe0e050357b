public import Catalog
import Contracts
public import Foundation
public import GatewayCore
public import HTTPClient
import Logging
import Metrics
import Storage

/// How the registrar's seat feed reaches the gateway: the webhook's signing secrets (several,
/// for rotation), the client that polls published feeds (its allow-list is the SSRF guard),
/// and how long each class's seat history is kept.
public struct RegistrarFeedSettings: Sendable {
    /// Secrets a `POST /v1/registrar/seat-status` may be signed with; none refuses every
    /// delivery.
    public var webhookSecrets: [WebhookSecret]
    /// Polls terms' `registrarFeedUrl`s; nil polls nothing.
    public var client: (any HTTPClient)?
    /// How long seat history and webhook ids are kept.
    public var historyRetention: TimeInterval

    public init(webhookSecrets: [WebhookSecret] = [], client: (any HTTPClient)? = nil, historyRetention: TimeInterval = 30 * 86_400) {
        self.webhookSecrets = webhookSecrets
        self.client = client
        self.historyRetention = historyRetention
    }

    /// Secrets from the text of `GATEWAY_REGISTRAR_WEBHOOK_SECRET_FILE`: one `whsec_<base64>`
    /// per line (blank lines skipped, surrounding whitespace trimmed); a failure names the first
    /// bad line (0: the file holds no secret).
    public static func secrets(fromFile text: String) -> Result<[WebhookSecret], RegistrarSecretFileProblem> {
        var secrets: [WebhookSecret] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty else { continue }
            guard let secret = WebhookSecret(displayValue: trimmed) else { return .failure(RegistrarSecretFileProblem(line: index + 1)) }
            secrets.append(secret)
        }
        return secrets.isEmpty ? .failure(RegistrarSecretFileProblem(line: 0)) : .success(secrets)
    }
}

/// A line of the registrar webhook's secret file that is not a `whsec_` secret (0: none is).
public struct RegistrarSecretFileProblem: Error, Sendable, Equatable {
    public let line: Int
}

/// What one delivery of the feed did.
public struct RegistrarFeedOutcome: Sendable, Equatable {
    public var term: String
    /// Updates that changed the mirror.
    public var applied: Int
    /// Updates older than (or as old as) what the gateway had for their class: ignored.
    public var stale: Int
    /// Section numbers the term has no class for, as given.
    public var unknownSections: [String]
    /// The delivery's `webhook-id` was applied before: nothing was applied again.
    public var duplicate: Bool
}

/// The registrar's seat feed for terms whose seats come from the registrar: signed webhook
/// deliveries and polled feeds, applied the same way.
///
/// Each delivery is one unit of the registration writer's batch: the delivery id is claimed,
/// each known section's update newer than the last one applied replaces the class's counts and
/// status, and the seat history records it. Classes that open or close are announced in that
/// transaction by the writer (``OpenSeatAnnouncer``), so watchers hear of an open seat through
/// the same path as any other, with its flap limit.
public struct RegistrarFeedService: RegistrationUseCase {
    let environment: RegistrationEnvironment
    let feed: RegistrarFeedSettings

    init(environment: RegistrationEnvironment, feed: RegistrarFeedSettings) {
        self.environment = environment
        self.feed = feed
    }

    /// Whether any webhook secret is configured.
    public var acceptsWebhooks: Bool { !feed.webhookSecrets.isEmpty }

    /// Checks a webhook delivery's Standard Webhooks signature against every configured secret
    /// (constant time each), then applies it. Unsigned, wrongly signed or out-of-tolerance
    /// deliveries are ``RegistrationError/registrarSignature(_:)`` and change nothing.
    public func receive(id: String?, timestamp: String?, signature: String?, body: Data) async throws -> RegistrarFeedOutcome {
        guard !feed.webhookSecrets.isEmpty else {
            RegistrarFeedMetrics.signatureFailures.increment()
            throw RegistrationError.registrarSignature("no registrar webhook secret is configured")
        }
        guard let id, !id.isEmpty, id.utf8.count <= 256, let timestamp, let signature, signature.utf8.count <= 4096 else {
            RegistrarFeedMetrics.signatureFailures.increment()
            throw RegistrationError.registrarSignature("webhook-id, webhook-timestamp and webhook-signature are required")
        }
        var failure: WebhookVerificationError = .noMatchingSignature
        var verified = false
        for secret in feed.webhookSecrets {
            do {
                try WebhookSignature.verify(id: id, timestamp: timestamp, body: body, signatures: signature, secret: secret.bytes, now: clock.now())
                verified = true
            } catch {
                failure = error
            }
        }
        guard verified else {
            RegistrarFeedMetrics.signatureFailures.increment()
            throw RegistrationError.registrarSignature(failure.description)
        }
        return try await apply(try Self.parse(body), deliveryID: id, via: "webhook")
    }

    static func parse(_ body: Data) throws(RegistrationError) -> RegistrarSeatFeed {
        do {
            return try RegistrarSeatFeed.parse(body)
        } catch {
            throw .invalidRegistrarFeed(pointer: error.pointer, reason: error.reason)
        }
    }

    /// Applies a parsed delivery (a webhook's, with its id, or a poll's).
    public func apply(_ delivery: RegistrarSeatFeed, deliveryID: String?, via: String) async throws -> RegistrarFeedOutcome {
        let stores = self.stores
        guard let term = try await transactions.read({ db in try stores.terms.term(id: delivery.term, in: db) }) else {
            throw RegistrationError.termNotFound(delivery.term)
        }
        guard term.seatsAtRegistrar else { throw RegistrationError.termNotAtRegistrar(term.id) }
        let outcome = try await write { db, now, touched -> Result<RegistrarFeedOutcome, RegistrationError> in
            var outcome = RegistrarFeedOutcome(term: term.id, applied: 0, stale: 0, unknownSections: [], duplicate: false)
            if let deliveryID, !(try stores.registrarFeed.claimDelivery(id: deliveryID, at: now, in: db)) {
                outcome.duplicate = true
                return .success(outcome)
            }
            let classIDs = try stores.catalog.classIDs(term: term.id, in: db)
            var known: [(id: Int64, update: RegistrarSeatUpdate)] = []
            for update in delivery.updates {
                if let id = classIDs[update.scheduleNumber] { known.append((id, update)) } else { outcome.unknownSections.append(update.scheduleNumber) }
            }
            let ids = Array(Set(known.map(\.id)))
            var last = try stores.registrarFeed.lastApplied(of: ids, in: db)
            var counts: [Int64: SeatCount] = [:]
            for start in stride(from: 0, to: ids.count, by: 500) {
                counts.merge(try stores.catalog.seatCounts(of: ids[start..<min(start + 500, ids.count)], in: db)) { _, new in new }
            }
            var applied: [(classID: Int64, update: RegistrarSeatUpdate)] = []
            for (id, update) in known {
                let asOf = update.asOf.feedMilliseconds
                guard asOf > last[id] ?? .min, let current = counts[id] else {
                    outcome.stale += 1
                    continue
                }
                let mirrored = update.mirrored(heldSeats: current.held, currentWaitlist: current.waitlist)
                try stores.catalog.mirrorSeats(
                    classID: id, seats: mirrored.seats, enrolled: mirrored.enrolled, waitlist: mirrored.waitlist, status: update.status, in: db
                )
                last[id] = asOf
                applied.append((id, update))
                touched.insert(id)
            }
            try stores.registrarFeed.recordApplied(applied, via: via, at: now, in: db)
            outcome.applied = applied.count
            return .success(outcome)
        }
        RegistrarFeedMetrics.applied.increment(by: outcome.applied)
        RegistrarFeedMetrics.stale.increment(by: outcome.stale)
        RegistrarFeedMetrics.unknown.increment(by: outcome.unknownSections.count)
        if outcome.applied + outcome.stale + outcome.unknownSections.count > 0 || outcome.duplicate {
            logger.info("registrar feed applied", metadata: [
                "term": "\(outcome.term)", "via": "\(via)", "applied": "\(outcome.applied)", "stale": "\(outcome.stale)",
                "unknown_sections": "\(outcome.unknownSections.count)", "duplicate": "\(outcome.duplicate)",
            ])
        }
        return outcome
    }

    /// The class's seat history, newest first (admins).
    public func history(classID: Int64, limit: Int) async throws -> [SeatHistoryEntry] {
        let stores = self.stores
        return try await transactions.read { db in
            guard try stores.catalog.classExists(classID, in: db) else { throw RegistrationError.unknownClass(classID) }
            return try stores.registrarFeed.history(classID: classID, limit: limit, in: db)
        }
    }

    /// Removes seat history and webhook ids past the retention period.
    @discardableResult
    public func prune() async throws -> Int {
        let (stores, cutoff) = (self.stores, clock.now().addingTimeInterval(-feed.historyRetention))
        return try await transactions.write { db in try stores.registrarFeed.prune(before: cutoff, in: db) }
    }
}

/// The feed's counters on `/metrics`.
enum RegistrarFeedMetrics {
    static let applied = Counter(label: "registrar_updates_applied_total")
    static let stale = Counter(label: "registrar_updates_stale_total")
    static let unknown = Counter(label: "registrar_unknown_sections_total")
    static let signatureFailures = Counter(label: "registrar_signature_failures_total")
    static let polls = Counter(label: "registrar_polls_total", dimensions: [("outcome", "ok")])
    static let failedPolls = Counter(label: "registrar_polls_total", dimensions: [("outcome", "failed")])
}

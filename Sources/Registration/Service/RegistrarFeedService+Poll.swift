public import Catalog
import Contracts
import GatewayCore
import Metrics
public import Foundation
import HTTPClient
import Logging
import Storage

extension RegistrarFeedService {
    /// The largest published feed fetched.
    static let maximumFeedBytes = RegistrarSeatFeed.maximumBodyBytes

    /// Polls every registrar term with a `registrarFeedUrl` whose last poll is at least its
    /// `registrarPollSeconds` old (the `registration.poll-registrar` job, every 30 seconds),
    /// then prunes history past its retention. Returns the polls made.
    @discardableResult
    public func pollDue() async throws -> [RegistrarPollRecord] {
        let stores = self.stores, now = clock.now()
        let due = try await transactions.read { db -> [Term] in
            try stores.terms.terms(in: db).filter { term in
                guard term.seatsAtRegistrar, term.registrarFeedURL != nil else { return false }
                guard let last = try stores.registrarFeed.lastPoll(term: term.id, in: db) else { return true }
                return now.timeIntervalSince(last.polledAt) >= Double(term.registrarPollInterval) - 1
            }
        }
        var polls: [RegistrarPollRecord] = []
        for term in due { polls.append(await poll(term)) }
        try await prune()
        return polls
    }

    /// Fetches the term's published feed through the HTTP client (whose allow-list refuses
    /// private and loopback addresses unless the operator lists them) and applies it as a
    /// webhook delivery would be; records when and how the poll went. Never throws: a failed
    /// poll is recorded and retried at the next interval.
    public func poll(_ term: Term) async -> RegistrarPollRecord {
        let outcome: String
        do {
            guard let url = term.registrarFeedURL else { throw RegistrarPollFailure("the term has no registrarFeedUrl") }
            // A term stored before plain http was refused is not fetched either.
            guard Term.isAcceptableRegistrarFeed(url) else {
                throw RegistrarPollFailure("the registrarFeedUrl is not https (plain http only to loopback)")
            }
            guard let client = feed.client else { throw RegistrarPollFailure("no HTTP client is configured for registrar feeds") }
            // The registrar is part of the deployment: the poll joins the job's trace.
            var request = OutboundRequest(
                url: url, timeout: .seconds(30), maxResponseBodySize: Self.maximumFeedBytes, propagatesTraceContext: true
            )
            request.headers.add(name: "Accept", value: "application/json")
            let response = try await client.execute(request)
            guard response.status == 200 else { throw RegistrarPollFailure("the feed answered HTTP \(response.status)") }
            try verifySignatureIfPresent(response)
            let delivery = try Self.parse(response.body)
            guard delivery.term == term.id else { throw RegistrarPollFailure("the feed is for term '\(delivery.term)', not '\(term.id)'") }
            let result = try await apply(delivery, deliveryID: nil, via: "poll")
            outcome = "ok: \(result.applied) applied, \(result.stale) stale, \(result.unknownSections.count) unknown"
            RegistrarFeedMetrics.polls.increment()
        } catch {
            outcome = "failed: \(Self.describe(error))"
            RegistrarFeedMetrics.failedPolls.increment()
            logger.warning("registrar feed poll failed", metadata: ["term": "\(term.id)", "error": "\(Self.describe(error))"])
        }
        let record = RegistrarPollRecord(term: term.id, polledAt: clock.now(), outcome: String(outcome.prefix(500)))
        let stores = self.stores
        do {
            try await transactions.write { db in try stores.registrarFeed.recordPoll(record, in: db) }
        } catch {
            logger.error("registrar feed poll not recorded", metadata: ["term": "\(term.id)", "error": "\(error)"])
        }
        return record
    }

    /// Every registrar term that publishes a feed, with its last poll (admins).
    public func pollStates() async throws -> [(term: Term, lastPoll: RegistrarPollRecord?)] {
        let stores = self.stores
        return try await transactions.read { db in
            try stores.terms.terms(in: db).filter { $0.seatsAtRegistrar && $0.registrarFeedURL != nil }.map { term in
                (term, try stores.registrarFeed.lastPoll(term: term.id, in: db))
            }
        }
    }

    /// A polled feed that carries Standard Webhooks headers (`webhook-id`, `webhook-timestamp`,
    /// `webhook-signature`) is checked like a webhook delivery, against the same secrets and
    /// tolerance; one that carries none is applied unsigned (its https connection is what
    /// vouches for it). A signed feed that does not verify, or a partly signed one, is refused.
    func verifySignatureIfPresent(_ response: OutboundResponse) throws {
        let id = response.headers["webhook-id"], timestamp = response.headers["webhook-timestamp"]
        let signature = response.headers["webhook-signature"]
        guard id != nil || timestamp != nil || signature != nil else { return }
        guard let id, !id.isEmpty, id.utf8.count <= 256, let timestamp, let signature, signature.utf8.count <= 4096 else {
            RegistrarFeedMetrics.signatureFailures.increment()
            throw RegistrarPollFailure("the feed is signed but lacks webhook-id, webhook-timestamp or webhook-signature")
        }
        guard !feed.webhookSecrets.isEmpty else {
            RegistrarFeedMetrics.signatureFailures.increment()
            throw RegistrarPollFailure("the feed is signed but no registrar webhook secret is configured")
        }
        var failure: WebhookVerificationError = .noMatchingSignature
        for secret in feed.webhookSecrets {
            do {
                try WebhookSignature.verify(id: id, timestamp: timestamp, body: response.body, signatures: signature, secret: secret.bytes, now: clock.now())
                return
            } catch {
                failure = error
            }
        }
        RegistrarFeedMetrics.signatureFailures.increment()
        throw RegistrarPollFailure("the feed's signature does not verify: \(failure.description)")
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as RegistrationError:
            if case .invalidRegistrarFeed(let pointer, let reason) = error { return "the feed's \(pointer.isEmpty ? "body" : pointer) \(reason)" }
            return "\(error)"
        case let error as HTTPClientError: return error.description
        default: return "\(error)"
        }
    }
}

/// Why a poll of a registrar feed failed.
struct RegistrarPollFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}

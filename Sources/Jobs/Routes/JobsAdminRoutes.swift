public import GatewayHTTP
import Foundation
import GatewayCore
public import Hummingbird

/// The admin endpoints of the job system (admins; operators read them, and act on them where
/// the gateway lets them), under `/v1/admin/`: `jobs`,
/// `jobs/{id}` (+ `retry`, `cancel`, delete), `queues` (+ `pause`, `resume`, PATCH for the
/// concurrency), `instances` and `schedules` (+ `enable`, `disable`, `run`).
public struct JobsAdminRoutes: ModuleRoutes {
    let runtime: JobsRuntime

    public init(runtime: JobsRuntime) { self.runtime = runtime }

    struct EnqueueBody: Decodable {
        let kind: String
        let args: JSONValue?
        let queue: String?
        let priority: Int?
        let scheduledAt: Date?
        let maxAttempts: Int?
        let uniqueKey: String?

        enum Keys: String, CodingKey { case kind, args, queue, priority, scheduledAt, maxAttempts, uniqueKey }

        /// The optional fields may be left out but never null: the contract gives none a null.
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            kind = try container.decode(String.self, forKey: .kind)
            // A null `args` decodes as `.null`, which the object check below refuses.
            args = container.contains(.args) ? try container.decode(JSONValue.self, forKey: .args) : nil
            queue = try container.decodeUnlessAbsent(String.self, forKey: .queue)
            priority = try container.decodeUnlessAbsent(Int.self, forKey: .priority)
            scheduledAt = try container.decodeUnlessAbsent(Date.self, forKey: .scheduledAt)
            maxAttempts = try container.decodeUnlessAbsent(Int.self, forKey: .maxAttempts)
            uniqueKey = try container.decodeUnlessAbsent(String.self, forKey: .uniqueKey)
        }
    }

    /// `POST /v1/admin/jobs/bulk`: an action and either ids or a filter.
    struct BulkBody: Decodable {
        let action: String
        let ids: [Int64]?
        let filter: JobFilterQuery.Body?
    }

    /// `PATCH /v1/admin/queues/{name}`: `{"concurrency": n}` (1 to 256), or null for each
    /// instance's configured number again. The key is required.
    struct QueueSettingsBody: Decodable {
        let concurrency: Int?

        enum Keys: String, CodingKey { case concurrency }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            concurrency = try container.decodeNil(forKey: .concurrency) ? nil : try container.decode(Int.self, forKey: .concurrency)
        }
    }

    /// A page of the job list with the total that matches.
    struct JobPage: Encodable {
        let items: [JobRecord]
        let nextCursor: String?
        let total: Int
        let totalIsLowerBound: Bool
    }

    public func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let service = runtime.service
        let registry = runtime.registry

        // Reads: admins and operators. Actions: admins, and operators where the gateway lets
        // them act (`RouteAccess.console`).
        let jobsRead = guarded.group(router, "v1/admin/jobs", access: .console(.read))
        let jobsAct = guarded.group(router, "v1/admin/jobs", access: .console(.act))
        jobsRead
            .get { request, _ in
                let query = request.uri.queryParameters
                let limit = try pageLimit(query["limit"].map(String.init))
                let before = try PageCursor.lastID(query["cursor"].map(String.init))
                let filter = try JobFilterQuery.filter(from: request)
                let jobs = try await service.list(filter, before: before, limit: limit + 1)
                let page = Page(fetched: jobs, limit: limit, id: \.id)
                let (total, isLowerBound) = try await service.total(matching: filter)
                return try GatewayJSON.response(
                    JobPage(items: page.items, nextCursor: page.nextCursor, total: total, totalIsLowerBound: isLowerBound),
                    nextCursor: page.nextCursor, for: request
                )
            }
            .get("stats") { request, _ in
                let query = request.uri.queryParameters
                let (window, step) = try Self.statsWindow(
                    window: query["window"].map(String.init), step: query["step"].map(String.init)
                )
                let queue = query["queue"].map(String.init)
                if let queue { try Self.checkQueueName(queue, field: "queue", status: .badRequest) }
                return try GatewayJSON.response(try await service.stats(windowSeconds: window, stepSeconds: step, queue: queue))
            }
            .get(":id") { _, context in
                let id = try Self.jobID(context)
                guard let job = try await service.job(id: id) else { throw JobsService.noSuchJob(id) }
                return try GatewayJSON.response(job)
            }
        jobsAct
            .post { request, context in
                let body = try await GatewayJSON.decode(EnqueueBody.self, from: request, context: context)
                guard registry.handler(for: body.kind)?.adminEnqueueable == true else {
                    throw Problem.validation(
                        "Admins may enqueue only these kinds: \(registry.kinds.filter { registry.handler(for: $0)?.adminEnqueueable == true }.joined(separator: ", ")).",
                        field: "kind"
                    )
                }
                let args = body.args ?? .object([:])
                guard args.isObject else { throw Problem.validation("'args' must be a JSON object.", field: "args") }
                do {
                    try registry.checkArguments(kind: body.kind, arguments: args.jsonData)
                } catch {
                    let explanation = DecodingExplanation(error, decoding: args.jsonData, under: "args")
                    throw Problem.validation(explanation.detail, field: explanation.field ?? "args")
                }
                let queue = body.queue ?? "default"
                try Self.checkQueueName(queue, field: "queue")
                if let attempts = body.maxAttempts, !(1...100).contains(attempts) {
                    throw Problem.validation("'maxAttempts' must be between 1 and 100.", field: "maxAttempts")
                }
                if let priority = body.priority, !NewJob.priorities.contains(priority) {
                    throw Problem.validation(
                        "'priority' must be between \(NewJob.priorities.lowerBound) and \(NewJob.priorities.upperBound).", field: "priority"
                    )
                }
                if let key = body.uniqueKey, !(1...200).contains(key.unicodeScalars.count) {
                    throw Problem.validation("'uniqueKey' is 1 to 200 characters.", field: "uniqueKey")
                }
                let job = NewJob(
                    kind: body.kind, rawArgs: args.jsonData, queue: queue, priority: body.priority ?? 0,
                    runAt: body.scheduledAt, maxAttempts: body.maxAttempts ?? 20, uniqueKey: body.uniqueKey
                )
                let result = try await service.enqueue(job)
                guard let record = try await service.job(id: result.id) else { throw Problem.notFound() }
                return try GatewayJSON.response(
                    record, status: result.duplicate ? .ok : .created, headers: [.location: "/v1/admin/jobs/\(record.id)"]
                )
            }
            .post("bulk") { request, context in
                let body = try await GatewayJSON.decode(BulkBody.self, from: request, context: context)
                guard let action = JobsService.BulkAction(rawValue: body.action) else {
                    throw Problem.validation(
                        "action is one of \(JobsService.BulkAction.allCases.map(\.rawValue).joined(separator: ", ")).", field: "action"
                    )
                }
                switch (body.ids, body.filter) {
                case (nil, nil), (.some, .some):
                    throw Problem.validation("Give either ids or filter.", field: body.ids == nil ? "ids" : "filter")
                case (let ids?, nil):
                    guard !ids.isEmpty, ids.count <= JobsService.bulkLimit else {
                        throw Problem.validation("ids holds 1 to \(JobsService.bulkLimit) job ids.", field: "ids")
                    }
                    return try GatewayJSON.response(try await service.bulk(action, ids: ids, filter: nil))
                case (nil, let filter?):
                    return try GatewayJSON.response(try await service.bulk(action, ids: nil, filter: try filter.filter()))
                }
            }
            .delete(":id") { _, context in
                try await service.delete(id: try Self.jobID(context))
                return Response(status: .noContent)
            }
            .post(":id/retry") { _, context in
                let job = try await service.retry(id: try Self.jobID(context))
                return try GatewayJSON.response(job)
            }
            .post(":id/cancel") { _, context in
                let job = try await service.cancel(id: try Self.jobID(context))
                return try GatewayJSON.response(job)
            }

        guarded.group(router, "v1/admin/queues", access: .console(.read))
            .get { _, _ in
                let queues = try await service.queues()
                return try GatewayJSON.response(["items": queues])
            }
        guarded.group(router, "v1/admin/queues", access: .console(.act))
            .patch(":name") { request, context in
                let name = try Self.queueName(context)
                let body = try await GatewayJSON.decode(QueueSettingsBody.self, from: request, context: context)
                let range = JobsConfiguration.concurrencyRange
                if let concurrency = body.concurrency, !range.contains(concurrency) {
                    throw Problem.validation(
                        "'concurrency' must be between \(range.lowerBound) and \(range.upperBound), or null.", field: "concurrency"
                    )
                }
                try await service.setConcurrency(queue: name, to: body.concurrency)
                return try GatewayJSON.response(try await service.queue(name))
            }
            .post(":name/pause") { _, context in
                let name = try Self.queueName(context)
                try await service.pause(queue: name)
                let queue = try await service.queue(name)
                return try GatewayJSON.response(queue)
            }
            .post(":name/resume") { _, context in
                let name = try Self.queueName(context)
                try await service.resume(queue: name)
                let queue = try await service.queue(name)
                return try GatewayJSON.response(queue)
            }

        guarded.group(router, "v1/admin/instances", access: .console(.read))
            .get { _, _ in
                try GatewayJSON.response(["items": try await service.instances()])
            }

        guarded.group(router, "v1/admin/schedules", access: .console(.read))
            .get { _, _ in
                let schedules = try await service.scheduleStatuses()
                return try GatewayJSON.response(["items": schedules])
            }
        guarded.group(router, "v1/admin/schedules", access: .console(.act))
            .post(":name/enable") { _, context in
                let schedule = try await service.setSchedule(named: try Self.name(context), enabled: true)
                return try GatewayJSON.response(schedule)
            }
            .post(":name/disable") { _, context in
                let schedule = try await service.setSchedule(named: try Self.name(context), enabled: false)
                return try GatewayJSON.response(schedule)
            }
            .post(":name/run") { _, context in
                let job = try await service.runSchedule(named: try Self.name(context))
                return try GatewayJSON.response(job, status: .created, headers: [.location: "/v1/admin/jobs/\(job.id)"])
            }
    }

    static func jobID(_ context: GatewayContext) throws -> Int64 {
        guard let id = context.parameters.get("id", as: Int64.self) else {
            throw Problem.notFound("Job ids are integers.")
        }
        return id
    }

    static func name(_ context: GatewayContext) throws -> String {
        guard let name = context.parameters.get("name"), !name.isEmpty else { throw Problem.notFound() }
        return name
    }

    static func queueName(_ context: GatewayContext) throws -> String {
        let name = try name(context)
        try checkQueueName(name, field: "name")
        return name
    }

    /// Queue names: 1 to 64 of a-z, A-Z, 0-9, '.', '_', '-'.
    static func checkQueueName(_ name: String, field: String, status: HTTPResponse.Status = .unprocessableContent) throws {
        let allowed = name.utf8.allSatisfy { c in
            (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39) || c == 0x2E || c == 0x5F || c == 0x2D
        }
        guard !name.isEmpty, name.utf8.count <= 64, allowed else {
            let detail = "Queue names are 1 to 64 letters, digits, '.', '_' or '-'."
            throw status == .badRequest ? Problem.badRequest(detail, invalidFields: [field]) : Problem.validation(detail, field: field)
        }
    }

    /// The most steps one stats answer holds.
    static let maxStatsSteps = 1440

    /// `window` and `step` of `GET /v1/admin/jobs/stats` in seconds: `<n>m`, `<n>h` or `<n>d`
    /// (`s` too, in whole minutes); the step whole minutes, the window a multiple of it, at most
    /// the 7 days kept and 1,440 steps. Defaults: 1 hour in 1-minute steps.
    static func statsWindow(window: String?, step: String?) throws -> (window: Int, step: Int) {
        func seconds(_ text: String, field: String) throws -> Int {
            let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
            let digits = text.dropLast()
            guard (1...7).contains(digits.utf8.count), digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let unit = text.last.flatMap({ units[$0] }), let number = Int(digits), number > 0
            else {
                throw Problem.badRequest("'\(field)' is a number and a unit: 30m, 1h, 7d.", invalidFields: [field])
            }
            return number * unit
        }
        let stepSeconds = try seconds(step ?? "1m", field: "step")
        let windowSeconds = try seconds(window ?? "1h", field: "window")
        guard stepSeconds % 60 == 0 else { throw Problem.badRequest("'step' is whole minutes.", invalidFields: ["step"]) }
        guard windowSeconds <= 7 * 86400 else { throw Problem.badRequest("'window' is at most 7d (what is kept).", invalidFields: ["window"]) }
        guard windowSeconds % stepSeconds == 0 else {
            throw Problem.badRequest("'window' is a whole number of steps.", invalidFields: ["window"])
        }
        guard windowSeconds / stepSeconds <= maxStatsSteps else {
            throw Problem.badRequest("At most \(maxStatsSteps) steps: a longer 'step' for this 'window'.", invalidFields: ["step"])
        }
        return (windowSeconds, stepSeconds)
    }

    /// `state=retryable,discarded`.
    static func states(_ text: String) throws -> [JobState] {
        try text.split(separator: ",").map { part in
            guard let state = JobState(rawValue: part.trimmingCharacters(in: .whitespaces)) else {
                throw Problem.badRequest(
                    "Unknown state '\(part)'; use \(JobState.allCases.map(\.rawValue).joined(separator: ", ")).",
                    invalidFields: ["state"]
                )
            }
            return state
        }
    }
}

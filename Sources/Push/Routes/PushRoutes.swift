import Foundation
import GatewayCore
public import GatewayHTTP
public import Hummingbird

/// The Push module's routes: students' devices at `/v1/me/devices` (with a test notification
/// and their delivery history) and the outbox for admins at `/v1/admin/push/notifications`.
public struct PushRoutes: Sendable {
    let devices: DeviceService
    let push: PushService
    /// The VAPID public key browsers subscribe with; nil when Web Push is not configured.
    let vapidPublicKey: String?
    let seatAlerts: SeatAlertService

    public init(devices: DeviceService, push: PushService, seatAlerts: SeatAlertService, vapidPublicKey: String?) {
        self.devices = devices
        self.push = push
        self.seatAlerts = seatAlerts
        self.vapidPublicKey = vapidPublicKey
    }

    struct DeviceBody: Decodable {
        let channel: String
        let name: String?
        let token: String?
        let environment: String?
        let topic: String?
        let endpoint: String?
        let p256dh: String?
        let auth: String?
        let url: String?
        let email: String?
        let phone: String?
    }

    public func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let devices = self.devices, push = self.push, vapidPublicKey = self.vapidPublicKey
        guarded.group(router, "v1/push", access: .public).get("vapid-public-key") { _, _ in
            guard let vapidPublicKey else {
                throw Problem(type: "web-push-unavailable", title: "Web Push not configured", status: .notFound, detail: "This server has no VAPID key (GATEWAY_VAPID_PRIVATE_KEY).")
            }
            return try GatewayJSON.response(["publicKey": vapidPublicKey])
        }
        let mine = guarded.group(router, "v1/me/devices", access: .authenticated)
        mine.get { _, context in
            let identity = try context.requireIdentity()
            return try GatewayJSON.response(["items": try await devices.devices(accountID: identity.accountID).map(PushViews.Device.init)])
        }
        mine.post { request, context in
            let identity = try context.requireIdentity()
            let body = try await GatewayJSON.decode(DeviceBody.self, from: request, context: context)
            let (device, secret) = try await devices.register(accountID: identity.accountID, DeviceService.Registration(
                channel: body.channel, name: body.name, token: body.token, environment: body.environment, topic: body.topic,
                endpoint: body.endpoint, p256dh: body.p256dh, auth: body.auth, url: body.url, email: body.email,
                phone: body.phone
            ), clientAddress: context.clientAddress)
            return try GatewayJSON.response(
                PushViews.NewDevice(device: PushViews.Device(device), webhookSecret: secret), status: .created,
                headers: [.location: "/v1/me/devices/\(device.id)", .cacheControl: "no-store"]
            )
        }
        mine.get(":deviceId") { _, context in
            let identity = try context.requireIdentity()
            return try GatewayJSON.response(PushViews.Device(try await devices.device(id: try Self.deviceID(context), accountID: identity.accountID)))
        }
        mine.delete(":deviceId") { _, context in
            let identity = try context.requireIdentity()
            try await devices.delete(id: try Self.deviceID(context), accountID: identity.accountID)
            return Response(status: .noContent)
        }
        mine.post(":deviceId/test") { _, context in
            let identity = try context.requireIdentity()
            let queued = try await push.sendTest(deviceID: try Self.deviceID(context), accountID: identity.accountID)
            return try GatewayJSON.response(["queued": queued], status: .accepted)
        }
        mine.get(":deviceId/notifications") { request, context in
            let identity = try context.requireIdentity()
            let device = try await devices.device(id: try Self.deviceID(context), accountID: identity.accountID)
            let query = request.uri.queryParameters
            let limit = try pageLimit(query.get("limit"))
            let before = try PageCursor.lastID(query.get("cursor"))
            let fetched = try await push.recent(state: nil, deviceIDs: [device.id], before: before, limit: limit + 1)
            return try GatewayJSON.response(page: Page(fetched: fetched.map(PushViews.Notification.init), limit: limit, id: \.id), for: request)
        }

        registerSeatAlerts(with: guarded, on: router)

        let admin = guarded.group(router, "v1/admin/push", access: .role(.admin))
        admin.get("notifications") { request, _ in
            var state: StoredNotification.State?
            if let raw = request.uri.queryParameters.get("state") {
                guard let parsed = StoredNotification.State(rawValue: raw) else {
                    throw PushError.invalid(field: "state", message: "state is one of pending, delivered, discarded, failed.")
                }
                state = parsed
            }
            let limit = try pageLimit(request.uri.queryParameters.get("limit"))
            let before = try PageCursor.lastID(request.uri.queryParameters.get("cursor"))
            let fetched = try await push.recent(state: state, deviceIDs: nil, before: before, limit: limit + 1)
            let page = Page(fetched: fetched.map(PushViews.Notification.init), limit: limit, id: \.id)
            let counts = try await push.counts()
            let outbox = PushViews.Outbox(
                counts: Dictionary(uniqueKeysWithValues: StoredNotification.State.allCases.map { ($0.rawValue, counts[$0] ?? 0) }),
                items: page.items, nextCursor: page.nextCursor
            )
            return try GatewayJSON.response(outbox, nextCursor: page.nextCursor, for: request)
        }
    }

    static func deviceID(_ context: GatewayContext) throws -> Int64 {
        guard let raw = context.parameters.get("deviceId"), let id = Int64(raw) else { throw PushError.deviceNotFound }
        return id
    }
}

/// The JSON shapes of devices and notifications. Never secrets: no webhook secret (shown once
/// at registration), no Web Push auth secret.
enum PushViews {
    struct Device: Encodable {
        let id: Int64
        let channel: String
        let name: String
        let active: Bool
        let environment: String?
        let topic: String?
        let endpointHost: String?
        /// Email devices: the address, whether it is confirmed, and categories muted for it.
        var email: String?
        /// SMS devices: the number (E.164).
        var phone: String?
        var confirmed: Bool?
        let mutedCategories: [String]?
        let createdAt: Date
        let lastSuccessAt: Date?
        let lastFailureAt: Date?
        let lastError: String?
        let failureCount: Int

        init(_ device: Push.Device) {
            id = device.id
            channel = device.channel.rawValue
            name = device.name
            active = device.active
            mutedCategories = device.channel == .email || !device.mutedCategories.isEmpty ? device.mutedCategories.sorted() : nil
            switch device.address {
            case .apns(_, let environment, let topic):
                self.environment = environment.rawValue
                self.topic = topic
                endpointHost = nil
            case .webPush(let endpoint, _, _):
                environment = nil
                topic = nil
                endpointHost = endpoint.host
            case .webhook(let url, _):
                environment = nil
                topic = nil
                endpointHost = url.host
            case .email(let address):
                environment = nil
                topic = nil
                endpointHost = nil
                email = address
                confirmed = device.confirmedAt != nil
            case .sms(let number):
                environment = nil
                topic = nil
                endpointHost = nil
                phone = number
                confirmed = device.confirmedAt != nil
            case .log:
                environment = nil
                topic = nil
                endpointHost = nil
            }
            createdAt = device.createdAt
            lastSuccessAt = device.lastSuccessAt
            lastFailureAt = device.lastFailureAt
            lastError = device.lastError
            failureCount = device.failureCount
        }
    }

    struct NewDevice: Encodable {
        let device: Device
        /// The webhook's signing secret, shown only now.
        let webhookSecret: String?
    }

    struct Notification: Encodable {
        let id: Int64
        let deviceId: Int64
        let category: String
        let title: String
        let body: String
        let state: String
        let attempts: Int
        let lastError: String?
        let createdAt: Date
        let deliveredAt: Date?

        init(_ stored: StoredNotification) {
            id = stored.id
            deviceId = stored.deviceID
            category = stored.notification.category
            title = stored.notification.title
            body = stored.notification.body
            state = stored.state.rawValue
            attempts = stored.attempts
            lastError = stored.lastError
            createdAt = stored.createdAt
            deliveredAt = stored.deliveredAt
        }
    }

    struct Outbox: Encodable {
        let counts: [String: Int]
        let items: [Notification]
        let nextCursor: String?
    }
}

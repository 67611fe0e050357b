public import Foundation
import GatewayCore

/// Canvas's OAuth2 exchanges as its OAuth2 docs give them, and what the gateway keeps of them.
public enum CanvasOAuth {
    /// `POST /login/oauth2/token`'s answer (a code exchanged, or a refresh): the refresh token
    /// and the user come with the code's answer only.
    public struct TokenAnswer: Sendable, Decodable {
        public var accessToken: String
        public var refreshToken: String?
        /// Seconds the access token lives (an hour); nil: it does not expire.
        public var expiresIn: Int?
        public var user: CanvasRecords.User?

        enum CodingKeys: String, CodingKey {
            case user
            case accessToken = "access_token"
            case refreshToken = "refresh_token"
            case expiresIn = "expires_in"
        }
    }

    /// An OAuth account's sealed secret: the access token, the refresh token, and when the
    /// access token expires.
    public struct Grant: Sendable, Codable, Equatable {
        public var accessToken: String
        public var refreshToken: String
        public var expiresAt: Date?

        /// Whether to refresh before using it: expired, or expiring within `margin`.
        public func isExpiring(at now: Date, margin: TimeInterval = 60) -> Bool {
            guard let expiresAt else { return false }
            return expiresAt.timeIntervalSince(now) <= margin
        }

        /// The grant after a refresh: a new access token (and refresh token, if Canvas sent one).
        public func refreshed(by answer: TokenAnswer, at now: Date) -> Grant {
            Grant(
                accessToken: answer.accessToken, refreshToken: answer.refreshToken ?? refreshToken,
                expiresAt: answer.expiresIn.map { now.addingTimeInterval(TimeInterval($0)) }
            )
        }
    }

    /// What a flow carries from its start to its callback, sealed by the vault as the `state`:
    /// the student who started it, the source, the browser's binding (the cookie's value), and
    /// when it ends.
    public struct Ticket: Sendable, Codable, Equatable {
        public var owner: Int64
        public var source: Int64
        public var binding: String
        public var expires: Date

        public init(owner: Int64, source: Int64, binding: String, expires: Date) {
            self.owner = owner
            self.source = source
            self.binding = binding
            self.expires = expires
        }
    }

    /// Where a flow's browser lands with `#canvas-connect=`: a plain path on the gateway
    /// (``ReturnPath``), the web app's `/` when absent; nil otherwise. Never another origin: the
    /// code must reach the owner's own app (the web app, or a native app through a universal
    /// link on the gateway's host).
    public static func landingPath(_ raw: String?) -> String? { ReturnPath.validate(raw) }

    /// Why a flow ended without an account, as the web app's page names it.
    public enum Failure: String, Sendable, Error {
        /// The student declined at Canvas.
        case denied
        /// The flow is older than its lifetime, or its state is not this gateway's.
        case expired
        /// The callback came to another browser than the one that started.
        case otherBrowser = "other-browser"
        /// Canvas refused the code.
        case refused
        /// The account is stored already, or the student keeps the most accounts.
        case exists
        case limit
        /// Canvas could not be reached or answered something else.
        case unavailable
    }
}

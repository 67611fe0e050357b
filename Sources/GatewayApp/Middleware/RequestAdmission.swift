import GatewayHTTP
import Hummingbird

/// A check or adjustment made to a request before it reaches its route: it may refuse the
/// request (by throwing) or adjust the context. Admissions run inside ``FrontDoorMiddleware``,
/// in order, without an async frame of their own; the front door renders what they throw.
protocol RequestAdmission: Sendable {
    func admit(_ request: Request, context: inout GatewayContext) throws
}

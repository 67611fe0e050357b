public import Hummingbird

/// HEAD wherever GET works, in one place for every route (RFC 9110 §9.3.2).
///
/// - The router is built with `.autoGenerateHeadEndpoints`: when it builds its responder, every
///   path with a GET handler and no HEAD handler of its own answers HEAD by running the GET
///   handler, with the whole middleware chain (the front door, access checks, rate limits,
///   metrics labelled `HEAD`), and dropping the body. The response keeps the GET's status and
///   headers, `Content-Length` included. A route that registers HEAD itself keeps its handler.
/// - ``FrontDoorMiddleware`` drops the body of every other answer to HEAD (the 404 for a path
///   or method nothing serves, errors rendered by ``ErrorResponses``), keeping its headers.
///
/// `router.routes` lists only the routes registered (HEAD appears once the responder is
/// built); ``servedRoutes(_:)`` adds the HEAD every GET route answers.
public enum HeadRequests {
    public static let routerOptions: RouterOptions = [.autoGenerateHeadEndpoints]

    /// The response to a HEAD request: the same status and headers, no body.
    /// `Content-Length` stays as the GET's body set it (absent when that length was unknown).
    public static func withoutBody(_ response: Response) -> Response {
        var headless = response
        let length = response.headers[.contentLength]
        headless.body = ResponseBody()
        headless.headers[.contentLength] = length
        return headless
    }

    /// `METHOD path` of every route the router answers: those registered, and HEAD for each GET
    /// route without a HEAD of its own.
    public static func servedRoutes<Context: RequestContext>(_ router: Router<Context>) -> [(method: HTTPRequest.Method, path: String)] {
        let registered = router.routes.map { (method: $0.method, path: $0.path.description) }
        let heads = Set(registered.filter { $0.method == .head }.map(\.path))
        let implied = registered.filter { $0.method == .get && !heads.contains($0.path) }.map { (method: HTTPRequest.Method.head, path: $0.path) }
        return registered + implied
    }
}

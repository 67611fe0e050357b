import GatewayHTTP
import Hummingbird

/// The one place that sets the request body limit: it refuses a request whose declared
/// `Content-Length` exceeds the limit before reading it, and puts the limit in the context
/// (`maxUploadSize`), where every body is collected with it (`collect(upTo:)`), so bodies
/// without a length are bounded the same way (``ErrorResponses`` turns that overflow into the
/// same 413).
///
/// A few paths (catalog uploads) take larger bodies; they are listed with their own limit. The
/// larger limit needs an `Authorization` header (the route then checks it), so an anonymous
/// client can't make the server read a large body.
struct BodyLimit: RequestAdmission {
    let limit: Int
    /// Exact request paths with a limit of their own.
    var exceptions: [String: Int] = [:]

    func admit(_ request: Request, context: inout GatewayContext) throws {
        var limit = self.limit
        if !exceptions.isEmpty, request.headers[.authorization] != nil, let larger = exceptions[request.uri.path] {
            limit = larger
        }
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw Problem.payloadTooLarge(limit: limit)
        }
        context.maxUploadSize = limit
    }
}

import Foundation
import GatewayHTTP
import Hummingbird
import NIOCore

/// What both file routes (`/gradebook/{id}/file_download`, `/v1/gradebook/{id}/file_download`)
/// answer for an upstream file: the bytes with the type and disposition ``FileDelivery`` allows,
/// and headers that keep a file from acting as a page of the gateway.
enum GradebookFileResponses {
    /// On every answer of the file routes: no sniffing, no scripts, no plugins, no forms, no
    /// same-origin powers even if a browser renders it; never stored by shared caches.
    static var securityHeaders: HTTPFields {
        [
            .xContentTypeOptions: "nosniff",
            .contentSecurityPolicy: "default-src 'none'; sandbox",
            .cacheControl: "private, no-store",
        ]
    }

    /// A 200 upstream file: its bytes, inline when its type is an image, PDF or plain text,
    /// otherwise an `application/octet-stream` attachment.
    static func file(_ reply: UpstreamReply, query: FileDownloadQuery) -> Response {
        let delivery = FileDelivery(
            upstreamType: reply.contentType, upstreamDisposition: reply.contentDisposition,
            fallbackName: "file-\(query.value("file") ?? "download")"
        )
        var headers = securityHeaders
        headers[.contentType] = delivery.contentType
        headers[.contentDisposition] = delivery.disposition
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: reply.body)))
    }

    /// Whether a 200 answer is the protocol's refusal, a JSON string `"Incorrect permission..."`
    /// rather than a file.
    static func isPermissionRefusal(_ reply: UpstreamReply) -> Bool {
        guard reply.status == 200, reply.body.count < 4096, reply.contentType?.lowercased().hasPrefix("application/json") == true,
              let text = try? JSONSerialization.jsonObject(with: reply.body, options: [.fragmentsAllowed]) as? String else { return false }
        return text.hasPrefix("Incorrect permission")
    }

    /// The caller's query, checked, without the parameters the gateway reads itself.
    static func query(_ request: Request, excluding own: Set<String> = []) throws(FileDownloadQuery.Refusal) -> FileDownloadQuery {
        guard (request.uri.query ?? "").utf8.count <= FileDownloadQuery.maximumEncodedBytes * 2 else {
            throw FileDownloadQuery.Refusal(reason: "the query is too long")
        }
        let pairs = request.uri.queryParameters.filter { !own.contains(String($0.key)) }.map { (String($0.key), String($0.value)) }
        return try FileDownloadQuery(pairs)
    }
}

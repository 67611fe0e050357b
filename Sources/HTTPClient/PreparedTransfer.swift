import Foundation

/// An ``OutboundRequest`` validated and merged with the client configuration: everything a
/// pool thread needs to configure a curl easy handle, with no further decisions to make.
struct PreparedTransfer: Sendable {
    /// One request header, ready for `CURLOPT_HTTPHEADER`.
    struct Header: Sendable {
        var name: String
        /// `Name: value` (or `Name;` for an empty value).
        var line: String
        /// Dropped once a redirect changes origin (see ``OutboundRequest/secretHeaderNames``).
        var isSecret: Bool
    }

    var method: HTTPMethod
    var url: URL
    var headers: [Header]
    var body: Data?
    var connectTimeoutMilliseconds: Int
    var timeoutMilliseconds: Int
    var followRedirects: Bool
    var maxRedirects: Int
    var credentials: BasicCredentials?
    var maxResponseBodySize: Int
    var additionalCAFile: String?
    var userAgent: String?
    var useEnvironmentProxy: Bool
    var allowedDestinations: DestinationAllowList

    /// Validates `request` and resolves defaults from `configuration`.
    /// - Throws: ``HTTPClientError/invalidURL(reason:)`` or
    ///   ``HTTPClientError/invalidRequest(reason:)``.
    init(_ request: OutboundRequest, configuration: CurlHTTPClient.Configuration) throws(HTTPClientError) {
        guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .invalidURL(reason: "only absolute http and https URLs are supported")
        }
        guard let host = request.url.host, !host.isEmpty else {
            throw .invalidURL(reason: "URL has no host")
        }
        guard Self.isToken(request.method.rawValue) else {
            throw .invalidRequest(reason: "invalid HTTP method")
        }
        var headers: [Header] = []
        headers.reserveCapacity(request.headers.count)
        for (name, value) in request.headers {
            guard Self.isToken(name) else {
                throw .invalidRequest(reason: "invalid header name")
            }
            guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw .invalidRequest(reason: "header \(name) contains CR, LF or NUL")
            }
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            // curl sends "Name;" as a header with an empty value ("Name:" would remove it).
            headers.append(Header(
                name: name,
                line: trimmed.isEmpty ? "\(name);" : "\(name): \(trimmed)",
                isSecret: request.isSecretHeader(name)))
        }
        let limit = request.maxResponseBodySize ?? configuration.maxResponseBodySize
        guard limit >= 0 else { throw .invalidRequest(reason: "negative response size limit") }

        self.method = request.method
        self.url = request.url
        self.headers = headers
        self.body = request.body
        self.connectTimeoutMilliseconds = Self.milliseconds(configuration.connectTimeout)
        self.timeoutMilliseconds = Self.milliseconds(request.timeout ?? configuration.defaultTimeout)
        self.followRedirects = request.followRedirects
        self.maxRedirects = configuration.maxRedirects
        self.credentials = request.basicCredentials
        self.maxResponseBodySize = limit
        self.additionalCAFile = configuration.additionalCAFile
        self.userAgent = configuration.userAgent
        self.useEnvironmentProxy = configuration.useEnvironmentProxy
        self.allowedDestinations = configuration.allowedDestinations
    }

    /// The request as first sent.
    var firstHop: TransferHop {
        TransferHop(url: url, method: method, body: body, sendsSecrets: true, sendsBodyHeaders: true)
    }

    /// `Name: value` lines for `CURLOPT_HTTPHEADER` on `hop`: without secret headers after a
    /// cross-origin redirect, and without body headers once the body was dropped.
    func headerLines(for hop: TransferHop) -> [String] {
        var lines: [String] = []
        lines.reserveCapacity(headers.count + 2)
        for header in headers {
            if header.isSecret && !hop.sendsSecrets { continue }
            if !hop.sendsBodyHeaders,
               RedirectPolicy.bodyHeaderNames.contains(where: { HTTPHeaderFields.namesMatch($0, header.name) }) {
                continue
            }
            lines.append(header.line)
        }
        if hop.body != nil {
            // libcurl would otherwise invent these for a request body.
            let names = headers.map(\.name)
            if !names.contains(where: { HTTPHeaderFields.namesMatch($0, "Content-Type") }) { lines.append("Content-Type:") }
            if !names.contains(where: { HTTPHeaderFields.namesMatch($0, "Expect") }) { lines.append("Expect:") }
        }
        return lines
    }

    /// Whole milliseconds, at least 1 (0 would mean "no timeout" to libcurl).
    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let millis = seconds.multipliedReportingOverflow(by: 1000)
        guard !millis.overflow else { return Int.max }
        return max(1, Int(millis.partialValue) + Int(attoseconds / 1_000_000_000_000_000))
    }

    /// RFC 9110 `token`: what header names and methods may consist of.
    static func isToken(_ string: String) -> Bool {
        !string.isEmpty && string.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }
}

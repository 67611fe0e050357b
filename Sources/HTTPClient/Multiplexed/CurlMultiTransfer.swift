import CCurl
public import Foundation
import Synchronization

/// One HTTPS POST for ``CurlMultiExecutor``.
public struct CurlMultiRequest: Sendable {
    public var url: String
    /// `name: value` lines; `name:` alone removes one of libcurl's default headers.
    public var headerLines: [String]
    public var body: Data
    public var timeoutMilliseconds: Int

    public init(url: String, headerLines: [String], body: Data, timeoutMilliseconds: Int) {
        self.url = url
        self.headerLines = headerLines
        self.body = body
        self.timeoutMilliseconds = timeoutMilliseconds
    }
}

/// The answer to a ``CurlMultiRequest``.
public struct CurlMultiResponse: Sendable {
    public var status: Int
    /// Response headers, names in lower case (a repeated name keeps its last value).
    public var headers: [String: String]
    public var body: Data
    /// `CURLINFO_HTTP_VERSION`: 3 for HTTP/2 (`CURL_HTTP_VERSION_2_0`).
    public var httpVersion: Int
    /// Connections this transfer had to open (0 when it reused or multiplexed onto one).
    public var newConnections: Int
}

/// Why a ``CurlMultiRequest`` got no response.
public enum CurlMultiError: Error, Sendable, Equatable, CustomStringConvertible {
    /// libcurl failed the transfer (connect, TLS, timeout, …).
    case transfer(code: Int, message: String)
    /// The executor was shut down first.
    case shutDown
    /// The waiting task was cancelled.
    case cancelled

    public var description: String {
        switch self {
        case .transfer(let code, let message): "curl error \(code): \(message)"
        case .shutDown: "the connection pool is shut down"
        case .cancelled: "cancelled"
        }
    }
}

/// Set from any thread when the waiting task is cancelled; read by the loop thread.
final class CurlMultiCancelFlag: Sendable {
    let id: UInt64
    private let flag = Atomic<Bool>(false)

    init(id: UInt64) { self.id = id }

    var isCancelled: Bool { flag.load(ordering: .acquiring) }
    func cancel() { flag.store(true, ordering: .releasing) }
}

/// One transfer in flight: its request, the continuation to complete, and the response being
/// collected by libcurl's callbacks.
///
/// `@unchecked Sendable`: created by the submitting task and handed to the loop thread once,
/// under the executor's lock; from then on only the loop thread touches it.
final class CurlMultiTransfer: CurlCallbackTarget, @unchecked Sendable {
    typealias Completion = CheckedContinuation<Result<CurlMultiResponse, CurlMultiError>, Never>

    let request: CurlMultiRequest
    let cancelFlag: CurlMultiCancelFlag
    private let continuation: Completion
    private var completed = false

    var easy: UnsafeMutableRawPointer?
    var headerList: UnsafeMutablePointer<curl_slist>?
    private var collector: ResponseCollector
    var body: Data { collector.body }
    /// Response headers, names in lower case (a repeated name keeps its last value).
    var headers: [String: String] { collector.headersByLowercasedName }
    var exceededBodyLimit: Bool { collector.exceededSizeLimit }
    let errorBuffer: UnsafeMutablePointer<CChar>

    init(request: CurlMultiRequest, cancelFlag: CurlMultiCancelFlag, maxBodySize: Int, continuation: Completion) {
        self.request = request
        self.cancelFlag = cancelFlag
        self.collector = ResponseCollector(sizeLimit: maxBodySize)
        self.continuation = continuation
        let size = Int(cg_error_size())
        errorBuffer = .allocate(capacity: size)
        errorBuffer.initialize(repeating: 0, count: size)
    }

    deinit {
        // The easy handle was reset (dropping its pointer to the buffer) before this runs.
        errorBuffer.deallocate()
        if !completed { continuation.resume(returning: .failure(.shutDown)) }
    }

    /// Completes the waiting task; later calls are ignored.
    func complete(_ result: Result<CurlMultiResponse, CurlMultiError>) {
        guard !completed else { return }
        completed = true
        continuation.resume(returning: result)
    }

    /// libcurl's message for a failed transfer: the error buffer, else the code's text.
    func errorMessage(for code: CURLcode) -> String {
        errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
    }

    /// Points `easy`'s write and header callbacks at `self`; the caller keeps `self` alive
    /// until the handle is reset.
    func installCallbacks(on easy: UnsafeMutableRawPointer) -> CURLcode {
        install([.body, .headers], on: easy)
    }

    override func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int { collector.receiveBody(bytes) }

    override func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) { collector.receiveHeaderLine(bytes) }
}

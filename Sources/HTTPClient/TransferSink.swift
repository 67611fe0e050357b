import CCurl
import Foundation

/// Collects one transfer's response (headers, body) from libcurl's C callbacks and answers
/// its progress callback (cancellation).
///
/// Lives on the pool thread only, for the duration of one `curl_easy_perform`; libcurl gets an
/// unretained pointer to it as callback user data.
final class TransferSink: CurlCallbackTarget {
    let ticket: TransferTicket<OutboundResponse>
    private var collector: ResponseCollector
    var body: Data { collector.body }
    var headers: [(name: String, value: String)] { collector.headers }
    /// Set when the write callback refused data because of the size limit.
    var exceededSizeLimit: Bool { collector.exceededSizeLimit }
    var sizeLimit: Int { collector.sizeLimit }
    /// Set when the progress callback aborted because the task was cancelled.
    private(set) var abortedForCancellation = false

    init(sizeLimit: Int, ticket: TransferTicket<OutboundResponse>) {
        self.collector = ResponseCollector(sizeLimit: sizeLimit)
        self.ticket = ticket
    }

    /// Points the handle's write, header and progress callbacks at `self`.
    /// The caller must keep `self` alive until `curl_easy_perform` returns.
    func install(on handle: UnsafeMutableRawPointer) -> CURLcode {
        install([.body, .headers, .progress], on: handle)
    }

    /// Returns the number of bytes consumed; anything else makes libcurl fail the transfer.
    override func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        if ticket.isCancelled {
            abortedForCancellation = true
            return 0
        }
        return collector.receiveBody(bytes)
    }

    /// Called once per header line, including each response's status line.
    override func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        collector.receiveHeaderLine(bytes)
    }

    /// Returns non-zero to make libcurl abort with `CURLE_ABORTED_BY_CALLBACK`.
    override func progress() -> Int32 {
        if ticket.isCancelled {
            abortedForCancellation = true
            return 1
        }
        return 0
    }
}

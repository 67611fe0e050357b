import CCurl
import Foundation

/// Collects one transfer's response (headers, body) from libcurl's C callbacks and answers
/// its progress callback (cancellation).
///
/// Lives on the pool thread only, for the duration of one `curl_easy_perform`; libcurl gets an
/// unretained pointer to it as callback user data.
final class TransferSink {
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

    /// Returns the number of bytes consumed; anything else makes libcurl fail the transfer.
    fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        if ticket.isCancelled {
            abortedForCancellation = true
            return 0
        }
        return collector.receiveBody(bytes)
    }

    /// Called once per header line, including each response's status line.
    fileprivate func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        collector.receiveHeaderLine(bytes)
    }

    /// Returns non-zero to make libcurl abort with `CURLE_ABORTED_BY_CALLBACK`.
    fileprivate func progress() -> Int32 {
        if ticket.isCancelled {
            abortedForCancellation = true
            return 1
        }
        return 0
    }

    /// Points the handle's write, header and progress callbacks at `self`.
    /// The caller must keep `self` alive until `curl_easy_perform` returns.
    func install(on handle: UnsafeMutableRawPointer) -> CURLcode {
        let userData = Unmanaged.passUnretained(self).toOpaque()
        let results: [CURLcode] = [
            cg_setopt_write_function(handle, sinkWriteCallback),
            cg_setopt_pointer(handle, CURLOPT_WRITEDATA, userData),
            cg_setopt_header_function(handle, sinkHeaderCallback),
            cg_setopt_pointer(handle, CURLOPT_HEADERDATA, userData),
            cg_setopt_xferinfo_function(handle, sinkProgressCallback),
            cg_setopt_pointer(handle, CURLOPT_XFERINFODATA, userData),
            cg_setopt_long(handle, CURLOPT_NOPROGRESS, 0),
        ]
        return results.first { $0 != CURLE_OK } ?? CURLE_OK
    }
}

// C-compatible callbacks: they cannot capture context, so they recover the sink from the
// user-data pointer.

private func sinkWriteCallback(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userData: UnsafeMutableRawPointer?
) -> Int {
    guard let userData else { return 0 }
    let sink = Unmanaged<TransferSink>.fromOpaque(userData).takeUnretainedValue()
    return sink.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
}

private func sinkHeaderCallback(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userData: UnsafeMutableRawPointer?
) -> Int {
    guard let userData else { return 0 }
    let sink = Unmanaged<TransferSink>.fromOpaque(userData).takeUnretainedValue()
    sink.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: size * count))
    return size * count
}

private func sinkProgressCallback(
    _ userData: UnsafeMutableRawPointer?, _: curl_off_t, _: curl_off_t, _: curl_off_t, _: curl_off_t
) -> Int32 {
    guard let userData else { return 0 }
    return Unmanaged<TransferSink>.fromOpaque(userData).takeUnretainedValue().progress()
}

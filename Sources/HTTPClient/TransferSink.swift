import CCurl
import Foundation

/// Collects one transfer's response (headers, body) from libcurl's C callbacks and answers
/// its progress callback (cancellation).
///
/// Lives on the pool thread only, for the duration of one `curl_easy_perform`; libcurl gets an
/// unretained pointer to it as callback user data.
final class TransferSink {
    let sizeLimit: Int
    let ticket: TransferTicket<OutboundResponse>
    private(set) var body = Data()
    private(set) var headers: [(name: String, value: String)] = []
    /// Set when the write callback refused data because of `sizeLimit`.
    private(set) var exceededSizeLimit = false
    /// Set when the progress callback aborted because the task was cancelled.
    private(set) var abortedForCancellation = false

    init(sizeLimit: Int, ticket: TransferTicket<OutboundResponse>) {
        self.sizeLimit = sizeLimit
        self.ticket = ticket
    }

    /// Returns the number of bytes consumed; anything else makes libcurl fail the transfer.
    fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        if ticket.isCancelled {
            abortedForCancellation = true
            return 0
        }
        guard body.count + bytes.count <= sizeLimit else {
            exceededSizeLimit = true
            return 0
        }
        body.append(contentsOf: bytes)
        return bytes.count
    }

    /// Called once per header line, including each response's status line.
    fileprivate func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        // Strip the line terminator as bytes: in Swift "\r\n" is one Character.
        var length = bytes.count
        while length > 0, bytes[length - 1] == 0x0D || bytes[length - 1] == 0x0A { length -= 1 }
        let line = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<length]), as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            // A new response begins (after 1xx or a followed redirect): keep only the last one.
            headers.removeAll()
            return
        }
        guard !line.isEmpty else { return }
        if let first = line.first, first == " " || first == "\t", !headers.isEmpty {
            // Obsolete line folding: continuation of the previous field's value.
            let continuation = line.trimmingCharacters(in: .whitespaces)
            headers[headers.count - 1].value += " " + continuation
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = String(line[..<colon])
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        headers.append((name: name, value: value))
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

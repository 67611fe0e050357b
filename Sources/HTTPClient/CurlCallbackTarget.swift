import CCurl
import Foundation

/// What libcurl's data callbacks reach, through their user-data pointer, for one transfer: the
/// response's body and header lines, the upload's bytes, and the progress callback that can
/// abort. Each kind of transfer overrides what it uses (a GET's sink, a multiplexed transfer,
/// an SMTP upload); the C callbacks below are shared, since they cannot capture context.
///
/// Lives on one transfer thread for the duration of a transfer; ``install(_:on:)`` hands libcurl
/// an unretained pointer, so the caller keeps the target alive until the handle is reset.
class CurlCallbackTarget {
    /// Which of libcurl's callbacks a transfer points at its target.
    enum Callback {
        /// `CURLOPT_WRITEFUNCTION`: body bytes to ``receiveBody(_:)``.
        case body
        /// `CURLOPT_HEADERFUNCTION`: each header line (SMTP: each reply line) to ``receiveHeaderLine(_:)``.
        case headers
        /// `CURLOPT_READFUNCTION`: the upload read through ``read(into:capacity:)``.
        case upload
        /// `CURLOPT_XFERINFOFUNCTION`: ``progress()``, which may abort the transfer.
        case progress
    }

    /// Body bytes; returns how many were taken (anything else fails the transfer).
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int { bytes.count }

    /// One header line, status lines included.
    func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) {}

    /// Fills `buffer` with up to `capacity` upload bytes: how many, 0 at the end, or
    /// `CURL_READFUNC_ABORT`.
    func read(into buffer: UnsafeMutablePointer<CChar>?, capacity: Int) -> Int { 0 }

    /// Non-zero makes libcurl abort with `CURLE_ABORTED_BY_CALLBACK`.
    func progress() -> Int32 { 0 }

    /// Points the handle's `callbacks` at `self`; the first failure, or `CURLE_OK`.
    final func install(_ callbacks: [Callback], on handle: UnsafeMutableRawPointer) -> CURLcode {
        let target = Unmanaged.passUnretained(self).toOpaque()
        for callback in callbacks {
            let codes: [CURLcode] = switch callback {
            case .body: [cg_setopt_write_function(handle, curlBodyCallback), cg_setopt_pointer(handle, CURLOPT_WRITEDATA, target)]
            case .headers: [cg_setopt_header_function(handle, curlHeaderCallback), cg_setopt_pointer(handle, CURLOPT_HEADERDATA, target)]
            case .upload: [cg_setopt_read_function(handle, curlUploadCallback), cg_setopt_pointer(handle, CURLOPT_READDATA, target)]
            case .progress: [
                    cg_setopt_xferinfo_function(handle, curlProgressCallback), cg_setopt_pointer(handle, CURLOPT_XFERINFODATA, target),
                    cg_setopt_long(handle, CURLOPT_NOPROGRESS, 0),
                ]
            }
            if let failed = codes.first(where: { $0 != CURLE_OK }) { return failed }
        }
        return CURLE_OK
    }

    fileprivate static func from(_ pointer: UnsafeMutableRawPointer) -> CurlCallbackTarget {
        Unmanaged<CurlCallbackTarget>.fromOpaque(pointer).takeUnretainedValue()
    }
}

private func curlBodyCallback(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ target: UnsafeMutableRawPointer?) -> Int {
    guard let target else { return 0 }
    return CurlCallbackTarget.from(target).receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
}

private func curlHeaderCallback(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ target: UnsafeMutableRawPointer?) -> Int {
    guard let target else { return 0 }
    CurlCallbackTarget.from(target).receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: size * count))
    return size * count
}

private func curlUploadCallback(_ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ target: UnsafeMutableRawPointer?) -> Int {
    guard let target else { return Int(CURL_READFUNC_ABORT) }
    return CurlCallbackTarget.from(target).read(into: buffer, capacity: size * count)
}

private func curlProgressCallback(_ target: UnsafeMutableRawPointer?, _: curl_off_t, _: curl_off_t, _: curl_off_t, _: curl_off_t) -> Int32 {
    guard let target else { return 0 }
    return CurlCallbackTarget.from(target).progress()
}

import CCurl
import Foundation

extension CurlEasyHandle {
    /// Sends one mail on the calling transfer thread (blocking) with this thread's handle.
    func performSMTP(_ transfer: SMTPTransfer, ticket: TransferTicket<SMTPReceipt>) -> Result<SMTPReceipt, any Error> {
        curl_easy_reset(handle)
        errorBuffer[0] = 0
        var recipients: UnsafeMutablePointer<curl_slist>?
        defer {
            // Drop every pointer the handle holds into this transfer before freeing them.
            curl_easy_reset(handle)
            curl_slist_free_all(recipients)
        }
        let source = SMTPUploadSource(message: transfer.message, ticket: ticket)
        return withExtendedLifetime(source) {
            do {
                recipients = curl_slist_append(nil, transfer.recipient)
                guard let recipients else { throw HTTPClientError.other(code: Int(CURLE_OUT_OF_MEMORY.rawValue), message: "out of memory") }
                try configureSMTP(transfer, recipients: recipients, source: source)
            } catch {
                return .failure(MailTransportError.transport(error as? HTTPClientError ?? .other(code: -1, message: "\(error)")))
            }
            let code = curl_easy_perform(handle)
            if source.abortedForCancellation || (code != CURLE_OK && ticket.isCancelled) { return .failure(CancellationError()) }
            let reply = Int(cg_response_code(handle))
            if code == CURLE_OK { return .success(SMTPReceipt(replyCode: reply == 0 ? 250 : reply)) }
            if code == CURLE_USE_SSL_FAILED { return .failure(MailTransportError.startTLSUnavailable) }
            if (400..<600).contains(reply) { return .failure(MailTransportError.rejected(code: reply, reply: source.lastReplyText)) }
            let detail = errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
            return .failure(MailTransportError.transport(HTTPClientError.from(curlCode: code, message: detail, sizeLimit: 0)))
        }
    }

    private func configureSMTP(_ transfer: SMTPTransfer, recipients: UnsafeMutablePointer<curl_slist>, source: SMTPUploadSource) throws(HTTPClientError) {
        try checkSMTP(cg_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer))
        try checkSMTP(cg_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
        try checkSMTP(cg_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "smtp,smtps"))
        try checkSMTP(cg_setopt_string(handle, CURLOPT_URL, transfer.url))
        // Security: STARTTLS or nothing; TLS verification always on.
        try checkSMTP(cg_setopt_long(handle, CURLOPT_USE_SSL, cg_use_ssl_all()))
        try checkSMTP(cg_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1))
        try checkSMTP(cg_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2))
        if let caFile = transfer.additionalCAFile { try checkSMTP(cg_setopt_string(handle, CURLOPT_CAINFO, caFile)) }
        try checkSMTP(cg_setopt_string(handle, CURLOPT_PROXY, ""))
        try checkSMTP(cg_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, transfer.connectTimeoutMilliseconds))
        try checkSMTP(cg_setopt_long(handle, CURLOPT_TIMEOUT_MS, transfer.timeoutMilliseconds))
        if let username = transfer.username, let password = transfer.password {
            try checkSMTP(cg_setopt_string(handle, CURLOPT_USERNAME, username))
            try checkSMTP(cg_setopt_string(handle, CURLOPT_PASSWORD, password))
        }
        try checkSMTP(cg_setopt_string(handle, CURLOPT_MAIL_FROM, "<\(transfer.from)>"))
        try checkSMTP(cg_setopt_slist(handle, CURLOPT_MAIL_RCPT, recipients))
        try checkSMTP(cg_setopt_long(handle, CURLOPT_UPLOAD, 1))
        try checkSMTP(cg_setopt_offset(handle, CURLOPT_INFILESIZE_LARGE, curl_off_t(transfer.message.count)))
        try checkSMTP(source.install(on: handle))
    }

    private func checkSMTP(_ code: CURLcode) throws(HTTPClientError) {
        guard code == CURLE_OK else { throw .other(code: Int(code.rawValue), message: String(cString: curl_easy_strerror(code))) }
    }
}

/// Feeds one message to libcurl's read callback, keeps the server's last reply line (libcurl
/// hands SMTP replies to the header callback) and answers the progress callback
/// (cancellation). Lives on the transfer thread for one `curl_easy_perform`.
final class SMTPUploadSource: CurlCallbackTarget {
    private let message: [UInt8]
    private var offset = 0
    let ticket: TransferTicket<SMTPReceipt>
    private(set) var abortedForCancellation = false
    private var lastReply = ""

    init(message: Data, ticket: TransferTicket<SMTPReceipt>) {
        self.message = Array(message)
        self.ticket = ticket
    }

    /// The last reply's text without its code: printable ASCII, at most 120 characters.
    var lastReplyText: String {
        let text = lastReply.count > 4 ? String(lastReply.dropFirst(4)) : ""
        return String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F }.prefix(120).map(Character.init))
    }

    override func read(into buffer: UnsafeMutablePointer<CChar>?, capacity: Int) -> Int {
        if ticket.isCancelled {
            abortedForCancellation = true
            return Int(CURL_READFUNC_ABORT)
        }
        let count = min(capacity, message.count - offset)
        guard count > 0, let buffer else { return 0 }
        message.withUnsafeBufferPointer { bytes in
            UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + offset, byteCount: count)
        }
        offset += count
        return count
    }

    /// libcurl hands each SMTP reply line to the header callback.
    override func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        var length = bytes.count
        while length > 0, bytes[length - 1] == 0x0D || bytes[length - 1] == 0x0A { length -= 1 }
        lastReply = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<length]), as: UTF8.self)
    }

    override func progress() -> Int32 {
        if ticket.isCancelled {
            abortedForCancellation = true
            return 1
        }
        return 0
    }

    /// Points the handle's read, reply and progress callbacks at `self`.
    func install(on handle: UnsafeMutableRawPointer) -> CURLcode {
        install([.upload, .headers, .progress], on: handle)
    }
}

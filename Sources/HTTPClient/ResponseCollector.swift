import Foundation

/// What one transfer's response has delivered so far, fed by libcurl's write and header
/// callbacks: the body up to a size limit, and the header fields of the last response (a 1xx or
/// a followed redirect starts over). Shared by the one-transfer-per-thread client
/// (``TransferSink``) and the multiplexed one (``CurlMultiExecutor``).
struct ResponseCollector {
    let sizeLimit: Int
    private(set) var body = Data()
    private(set) var headers: [(name: String, value: String)] = []
    /// Set when a body chunk was refused because of `sizeLimit`.
    private(set) var exceededSizeLimit = false

    init(sizeLimit: Int) { self.sizeLimit = sizeLimit }

    /// Takes a body chunk; returns the bytes consumed (anything else makes libcurl fail the
    /// transfer).
    mutating func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard body.count + bytes.count <= sizeLimit else {
            exceededSizeLimit = true
            return 0
        }
        body.append(contentsOf: bytes)
        return bytes.count
    }

    /// Takes one header line, including each response's status line.
    mutating func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) {
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

    /// The header fields by lower-case name; a repeated name keeps its last value.
    var headersByLowercasedName: [String: String] {
        var fields: [String: String] = [:]
        for (name, value) in headers { fields[name.lowercased()] = value }
        return fields
    }
}

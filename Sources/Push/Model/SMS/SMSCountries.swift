import Foundation

/// The countries the gateway texts, by ITU-T E.164 country calling code
/// (`GATEWAY_SMS_COUNTRIES`, comma-separated, default `1`): a number in any other country is
/// refused when it is registered (422 on `phone`) and is never texted, so nobody can point the
/// gateway's confirmation texts at premium-rate numbers abroad (SMS pumping). Pure.
///
/// A calling code has one to three digits (`1`, `44`, `353`). A number's code is found the way
/// E.164 defines it: the assigned codes are a prefix code (no assigned code begins another), so
/// exactly one assigned code, if any, begins the number's digits, and that code must be on the
/// list. `+1` is the whole North American Numbering Plan (the United States, Canada and the
/// Caribbean countries that share it: allowing `1` allows all of them); `+44` is the United
/// Kingdom only, and `+4` is nothing. A configured code that no country has (`35`, `4`, `0`) is
/// refused at start-up, since no number could match it and a prefix match on it would be wrong.
public struct SMSCountries: Sendable, Equatable, CustomStringConvertible {
    /// The allowed calling codes, in the order given, without duplicates.
    public let codes: [String]

    /// Only the North American Numbering Plan (`+1`).
    public static let `default` = SMSCountries(checked: ["1"])

    private init(checked codes: [String]) {
        self.codes = codes
    }

    /// Why a configured list was refused (the message names the code, never a number).
    public struct Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// The list from `GATEWAY_SMS_COUNTRIES`: calling codes separated by commas, each with or
    /// without a leading `+`, spaces ignored (`1, 44,+353`). At least one; each must be assigned.
    public init(parsing raw: String) throws(Invalid) {
        var codes: [String] = []
        for part in raw.split(separator: ",", omittingEmptySubsequences: false) {
            var code = part.trimmingCharacters(in: .whitespaces)
            if code.hasPrefix("+") { code.removeFirst() }
            guard !code.isEmpty else { throw Invalid(description: "an empty calling code (the list is comma-separated, e.g. 1,44)") }
            guard code.utf8.count <= 3, code.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                throw Invalid(description: "'\(code.prefix(8))' is not a calling code (1 to 3 digits, e.g. 1, 44, 353)")
            }
            guard Self.assigned.contains(code) else {
                throw Invalid(description: "no country has the calling code +\(code)")
            }
            if !codes.contains(code) { codes.append(code) }
        }
        guard !codes.isEmpty else { throw Invalid(description: "no calling code") }
        self.codes = codes
    }

    /// The calling code of a number in E.164 form (`+447700900123` → `44`), or nil when no
    /// assigned code begins it.
    public static func callingCode(of number: String) -> String? {
        let digits = number.hasPrefix("+") ? number.dropFirst() : number[...]
        for length in 1...3 where digits.count >= length {
            let candidate = String(digits.prefix(length))
            if assigned.contains(candidate) { return candidate }
        }
        return nil
    }

    /// Whether the gateway texts this number.
    public func allows(_ phone: PhoneNumber) -> Bool {
        guard let code = Self.callingCode(of: phone.value) else { return false }
        return codes.contains(code)
    }

    /// `+1, +44`.
    public var description: String { codes.map { "+" + $0 }.joined(separator: ", ") }

    /// The country calling codes ITU-T assigns (E.164 and its list of assigned codes), the
    /// geographic ones and the shared non-geographic services. Spare and withdrawn codes (259,
    /// 671, 684, ...) are not here. No code in it begins another (a test checks).
    public static let assigned: Set<String> = {
        var codes: Set<String> = ["1", "7"]
        codes.formUnion([
            "20", "27", "30", "31", "32", "33", "34", "36", "39", "40", "41", "43", "44", "45", "46", "47", "48", "49",
            "51", "52", "53", "54", "55", "56", "57", "58", "60", "61", "62", "63", "64", "65", "66",
            "81", "82", "84", "86", "90", "91", "92", "93", "94", "95", "98",
        ])
        codes.formUnion(["211", "212", "213", "216", "218"])
        codes.formUnion((220...258).map(String.init))
        codes.formUnion((260...269).map(String.init))
        codes.formUnion(["290", "291", "297", "298", "299"])
        codes.formUnion((350...359).map(String.init))
        codes.formUnion((370...389).filter { $0 != 384 && $0 != 388 }.map(String.init))
        codes.formUnion(["420", "421", "423"])
        codes.formUnion((500...509).map(String.init))
        codes.formUnion((590...599).map(String.init))
        codes.formUnion(["670", "672", "673", "674", "675", "676", "677", "678", "679"])
        codes.formUnion(["680", "681", "682", "683", "685", "686", "687", "688", "689", "690", "691", "692"])
        codes.formUnion(["800", "808", "850", "852", "853", "855", "856", "870", "878", "880", "881", "882", "883", "886", "888"])
        codes.formUnion((960...968).map(String.init))
        codes.formUnion(["970", "971", "972", "973", "974", "975", "976", "977", "979", "992", "993", "994", "995", "996", "998"])
        return codes
    }()
}

public import Foundation

/// What a text message says, pure: short enough for one or two segments, in characters every
/// phone shows.
///
/// A text is GSM-7 encoded when every character is in the GSM 03.38 default alphabet: 160
/// characters fit one segment, and a longer text is split into segments of 153 (7 characters
/// go to the concatenation header). Anything outside the alphabet switches the whole text to
/// UCS-2 (70 per segment), and the extension table's characters (`[]{}\^~|`) cost two. So texts
/// are made of printable ASCII without those: accents are dropped (`é` → `e`), the extension
/// characters and anything else are replaced, and then every character is exactly one septet.
/// A text is at most ``maximumLength`` (two segments).
public enum SMSText {
    /// Characters in one segment of a text that fits one.
    public static let singleSegment = 160
    /// Characters per segment of a concatenated text.
    public static let concatenatedSegment = 153
    /// The longest text the gateway sends: two concatenated segments.
    public static let maximumLength = 2 * concatenatedSegment

    /// `raw` in characters that are each one GSM-7 septet: printable ASCII, accents dropped,
    /// the extension table's characters and the backtick replaced, any other character (an
    /// emoji, a control character, a line break) a space; runs of spaces squeezed.
    public static func gsmSafe(_ raw: String) -> String {
        let folded = raw.folding(options: [.diacriticInsensitive, .widthInsensitive], locale: Locale(identifier: "en_US_POSIX"))
        var out = ""
        out.reserveCapacity(folded.utf8.count)
        for scalar in folded.unicodeScalars {
            let character: Character
            switch scalar {
            case "[", "{": character = "("
            case "]", "}": character = ")"
            case "\\": character = "/"
            case "^", "~", "|": character = "-"
            case "`", "\u{2018}", "\u{2019}": character = "'"
            case "\u{201C}", "\u{201D}": character = "\""
            case "\u{2013}", "\u{2014}": character = "-"
            case "\u{2026}": character = "."
            default:
                character = scalar.value >= 0x20 && scalar.value < 0x7F ? Character(scalar) : " "
            }
            if character == " ", out.last == " " { continue }
            out.append(character)
        }
        return out
    }

    /// Whether every character of `text` is one GSM-7 septet as ``gsmSafe(_:)`` makes them.
    public static func isGSMSafe(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F && !"[]{}\\^~|`".unicodeScalars.contains($0) }
    }

    /// How many segments `text` (GSM-safe) takes.
    public static func segments(_ text: String) -> Int {
        let count = text.unicodeScalars.count
        if count <= singleSegment { return 1 }
        return (count + concatenatedSegment - 1) / concatenatedSegment
    }

    /// A text of at most ``maximumLength``: `Campus Gateway: <headline>. <detail> <link>`. The
    /// link is never cut (it comes last, whole); the detail (a course's title, a
    /// notification's body) is shortened first, at a word where it can, with `...`; then the
    /// headline (the course and section come first in it, so they survive).
    public static func compose(headline: String, detail: String?, link: String?) -> String {
        let prefix = "Campus Gateway: "
        let link = link.map(gsmSafe).map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        var head = gsmSafe(headline).trimmingCharacters(in: .whitespaces)
        while head.hasSuffix(".") { head.removeLast() }
        let tail = link.map { " " + $0 } ?? ""
        // The room the headline may take with nothing else; the link is kept whole if it fits at all.
        let linkRoom = tail.count <= maximumLength - prefix.count - 10 ? tail : ""
        let headRoom = maximumLength - prefix.count - linkRoom.count - 1
        head = shorten(head, to: headRoom).trimmingCharacters(in: .whitespaces)
        var text = head.isEmpty ? "Campus Gateway." : prefix + head + "."
        if let detail {
            let body = gsmSafe(detail).trimmingCharacters(in: .whitespaces)
            let room = maximumLength - text.count - linkRoom.count - 1
            if !body.isEmpty, room >= 8 { text += " " + shorten(body, to: room) }
        }
        return text + linkRoom
    }

    /// `text` cut to at most `limit` characters, at a word boundary when one is near, ending in
    /// `...` when cut.
    public static func shorten(_ text: String, to limit: Int) -> String {
        guard text.count > limit else { return text }
        guard limit > 3 else { return String(text.prefix(max(0, limit))) }
        var cut = String(text.prefix(limit - 3))
        if let space = cut.lastIndex(of: " "), cut.distance(from: cut.startIndex, to: space) >= (limit - 3) * 2 / 3 {
            cut = String(cut[..<space])
        }
        while cut.hasSuffix(" ") || cut.hasSuffix(",") || cut.hasSuffix(".") { cut.removeLast() }
        return cut + "..."
    }

    /// The confirmation text: the code and nothing else secret (no link, no token).
    public static func confirmation(code: String) -> String {
        let hours = Int(EmailConfirmation.lifetime / 3600)
        return "Campus Gateway code: \(code). Enter it in Campus Gateway to get alerts at this number. It works for \(hours) hours. Reply STOP to stop texts."
    }

    /// The web app's page for a class: `<public URL>/#/catalog?class=<id>`.
    public static func classLink(publicURL: String, classID: String) -> String? {
        guard !classID.isEmpty, classID.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        var base = publicURL
        while base.hasSuffix("/") { base.removeLast() }
        return "\(base)/#/catalog?class=\(classID)"
    }

    /// A notification as a text: its title as the headline; for a notification about a class
    /// (`data["classId"]`), the course's title as the detail and the link to the class in the
    /// web app; otherwise its body as the detail. Nothing from `data` but the class id and the
    /// course title goes in, so no token ever does.
    public static func notification(_ notification: OutgoingNotification, publicURL: String) -> String {
        if let classID = notification.data["classId"], let link = classLink(publicURL: publicURL, classID: classID) {
            return compose(headline: notification.title, detail: notification.data["courseTitle"], link: link)
        }
        return compose(headline: notification.title, detail: notification.body, link: nil)
    }
}

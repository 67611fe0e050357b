import Foundation

extension CalendarDocument {
    /// A download name safe in any `Content-Disposition` header: lowercase ASCII letters,
    /// digits and dashes, then `.ics`. `("Plan A", "2024-spring")` gives
    /// `plan-a-2024-spring.ics`; accents fold (`Été` → `ete`), anything else becomes a dash,
    /// and an empty name reads `schedule`.
    public static func filename(displayName: String, termID: String) -> String {
        let name = slug(displayName, limit: 60)
        let term = slug(termID, limit: 40)
        var base = name.isEmpty ? "schedule" : name
        if !term.isEmpty, base != term, !base.hasSuffix("-" + term) { base += "-" + term }
        return base + ".ics"
    }

    /// `attachment; filename="plan-a-2024-spring.ics"`.
    public static func contentDisposition(displayName: String, termID: String) -> String {
        "attachment; filename=\"\(filename(displayName: displayName, termID: termID))\""
    }

    /// Lowercase ASCII letters and digits, runs of anything else as one dash, no dash at
    /// either end, at most `limit` characters.
    static func slug(_ text: String, limit: Int) -> String {
        let folded = text.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil).lowercased()
        var out = ""
        var pendingDash = false
        for scalar in folded.unicodeScalars {
            let value = scalar.value
            guard (0x61...0x7A).contains(value) || (0x30...0x39).contains(value) else {
                pendingDash = !out.isEmpty
                continue
            }
            if pendingDash {
                guard out.count + 2 <= limit else { break }
                out.append("-")
                pendingDash = false
            }
            guard out.count < limit else { break }
            out.unicodeScalars.append(scalar)
        }
        while out.hasSuffix("-") { out.removeLast() }
        return out
    }
}

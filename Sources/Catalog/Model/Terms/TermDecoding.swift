/// Field paths for terms that did not decode, written the way ``Term/validate()`` names fields
/// (`firstDay`, `holidays[1].date`), so a bad date and a date outside the term read alike.
extension TermProblem {
    /// The problem a decoding error describes, or nil when it names no field (the body is not
    /// JSON, or not an object).
    public init?(_ error: DecodingError) {
        switch error {
        case .keyNotFound(let key, let context):
            self.init(field: Self.path(context.codingPath + [key]), reason: "is required")
        case .typeMismatch(let type, let context):
            guard !context.codingPath.isEmpty else { return nil }
            self.init(field: Self.path(context.codingPath), reason: "must be \(Self.typeName(type))")
        case .valueNotFound(let type, let context):
            guard !context.codingPath.isEmpty else { return nil }
            self.init(field: Self.path(context.codingPath), reason: "must be \(Self.typeName(type)), not null")
        case .dataCorrupted(let context):
            guard !context.codingPath.isEmpty else { return nil }
            self.init(field: Self.path(context.codingPath), reason: context.debugDescription)
        @unknown default:
            return nil
        }
    }

    /// `holidays[1].date` from the coding path.
    static func path(_ keys: [any CodingKey]) -> String {
        var text = ""
        for key in keys {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return text
    }

    static func typeName(_ type: Any.Type) -> String {
        if type == String.self || type == CivilDate.self { return "a string" }
        let name = String(describing: type)
        if name.hasPrefix("Array") || name.hasPrefix("[") { return "an array" }
        if name.hasPrefix("Dictionary") || type == Term.self || type == Term.Holiday.self || type == Term.TransferDay.self { return "an object" }
        return name
    }
}

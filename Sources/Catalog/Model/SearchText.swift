import GatewayCore

/// The rules for a catalog text search (`q`): its cost grows with each word (every word walks
/// the postings of every indexed word it prefixes), so a query is held to a few real words.
public enum SearchText {
    /// The most distinct words a query may have.
    public static let maximumWords = 8
    /// The shortest word: a single letter prefixes a large part of the index.
    public static let minimumWordLength = 2
    /// The longest query text accepted, in characters.
    public static let maximumLength = 200

    /// The query's distinct words (lowercased, first occurrence first) joined by spaces, or
    /// ``InvalidInput`` naming `field` when it is too long, has too many words or a word too short.
    public static func normalized(_ text: String, field: String = "q") throws -> String {
        guard text.count <= maximumLength else {
            throw InvalidInput("\(field) must be at most \(maximumLength) characters.", field: field)
        }
        var seen = Set<[UInt8]>()
        var words: [[UInt8]] = []
        for word in TextIndex.words(in: text) where seen.insert(word).inserted { words.append(word) }
        guard words.count <= maximumWords else {
            throw InvalidInput("\(field) may have at most \(maximumWords) different words.", field: field)
        }
        guard words.allSatisfy({ String(decoding: $0, as: UTF8.self).count >= minimumWordLength }) else {
            throw InvalidInput("Each word of \(field) needs at least \(minimumWordLength) characters.", field: field)
        }
        return words.map { String(decoding: $0, as: UTF8.self) }.joined(separator: " ")
    }
}

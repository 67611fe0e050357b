import Foundation

/// What an inbound text asks for, as carriers and CTIA's guidelines define the keywords: the
/// whole message, trimmed, in any case. `STOP` and its synonyms opt the number out of every
/// text from the gateway; `START`, `UNSTOP` and `YES` opt it back in. Anything else (including
/// `HELP`, which the provider answers itself) changes nothing.
public enum SMSKeyword: Sendable, Equatable {
    case stop
    case start
    case other

    public static let stopWords: Set<String> = ["STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "OPTOUT", "REVOKE"]
    public static let startWords: Set<String> = ["START", "UNSTOP", "YES"]

    public init(body: String) {
        let word = body.trimmingCharacters(in: .whitespacesAndNewlines).uppercased()
        if Self.stopWords.contains(word) {
            self = .stop
        } else if Self.startWords.contains(word) {
            self = .start
        } else {
            self = .other
        }
    }
}

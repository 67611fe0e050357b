/// An inverted index of the words in class titles and descriptions. A query matches a class
/// when every query word is the beginning of some word of the class (`soft intern` finds
/// "SOFTWARE INTERNATNLIZATN"). Lookups are binary searches over sorted words plus bit-set
/// unions, so they cost microseconds for a whole catalog.
struct TextIndex: Sendable {
    private let words: [[UInt8]]
    private let postings: [[Int32]]
    let slotCount: Int

    /// `texts[slot]` is the searchable text of the class in that slot.
    init(texts: [String]) {
        var map: [[UInt8]: [Int32]] = [:]
        for (slot, text) in texts.enumerated() {
            for word in Set(Self.words(in: text)) { map[word, default: []].append(Int32(slot)) }
        }
        let sorted = map.keys.sorted { $0.lexicographicallyPrecedes($1) }
        words = sorted
        postings = sorted.map { map[$0]! }
        slotCount = texts.count
    }

    /// The slots whose text contains a word starting with each of the query's words; nil when
    /// the query has no words.
    func matches(_ query: String) -> Bitset? {
        var seen = Set<[UInt8]>()
        let queryWords = Self.words(in: query).filter { seen.insert($0).inserted }
        guard !queryWords.isEmpty else { return nil }
        var result = Bitset(count: slotCount, filled: true)
        for prefix in queryWords {
            var matched = Bitset(count: slotCount)
            var index = lowerBound(prefix)
            while index < words.count, words[index].starts(with: prefix) {
                for slot in postings[index] { matched.insert(Int(slot)) }
                index += 1
            }
            result.formIntersection(matched)
        }
        return result
    }

    private func lowerBound(_ key: [UInt8]) -> Int {
        var low = 0, high = words.count
        while low < high {
            let mid = (low + high) / 2
            if words[mid].lexicographicallyPrecedes(key) { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Lowercased runs of letters and digits, as UTF-8 bytes. Non-ASCII characters count as
    /// letters (so `café` stays one word); ASCII punctuation and spaces separate words.
    static func words(in text: String) -> [[UInt8]] {
        var result: [[UInt8]] = []
        var current: [UInt8] = []
        for byte in text.lowercased().utf8 {
            if byte >= 0x80 || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) {
                current.append(byte)
            } else if !current.isEmpty {
                result.append(current)
                current.removeAll(keepingCapacity: true)
            }
        }
        if !current.isEmpty { result.append(current) }
        return result
    }
}

/// Case-insensitive substring search over ASCII-lowercased bytes (instructor names).
enum ByteSearch {
    static func lowered(_ text: String) -> [UInt8] { Array(text.lowercased().utf8) }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard haystack.count >= needle.count else { return false }
        let first = needle[0]
        var i = 0
        let last = haystack.count - needle.count
        while i <= last {
            if haystack[i] == first {
                var j = 1
                while j < needle.count, haystack[i + j] == needle[j] { j += 1 }
                if j == needle.count { return true }
            }
            i += 1
        }
        return false
    }
}

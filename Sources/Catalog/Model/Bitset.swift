/// A fixed-size set of small integers (catalog slots), for combining filters quickly.
struct Bitset: Sendable, Equatable {
    private(set) var words: [UInt64]
    let count: Int

    init(count: Int, filled: Bool = false) {
        self.count = count
        words = Array(repeating: filled ? ~0 : 0, count: (count + 63) / 64)
        if filled, count % 64 != 0, !words.isEmpty { words[words.count - 1] = (1 << UInt64(count % 64)) - 1 }
    }

    mutating func insert(_ index: Int) { words[index >> 6] |= 1 << UInt64(index & 63) }

    func contains(_ index: Int) -> Bool { words[index >> 6] & (1 << UInt64(index & 63)) != 0 }

    mutating func formIntersection(_ other: Bitset) {
        for i in words.indices { words[i] &= other.words[i] }
    }

    mutating func formUnion(_ other: Bitset) {
        for i in words.indices { words[i] |= other.words[i] }
    }

    /// Calls `body` with each member at or above `start`, in ascending order, until it
    /// returns false.
    func forEach(from start: Int = 0, _ body: (Int) -> Bool) {
        guard start < count else { return }
        var wordIndex = start >> 6
        var word = words[wordIndex] & (~0 << UInt64(start & 63))
        while true {
            while word != 0 {
                let bit = word.trailingZeroBitCount
                if !body(wordIndex << 6 | bit) { return }
                word &= word - 1
            }
            wordIndex += 1
            guard wordIndex < words.count else { return }
            word = words[wordIndex]
        }
    }
}

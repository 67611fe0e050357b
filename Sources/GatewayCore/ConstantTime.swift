/// Compares two byte sequences in time that depends only on their lengths, never on where
/// they first differ. Use it for every secret comparison (tokens, signatures, webhook secrets).
/// Inlinable, so each caller gets a loop specialised to its collections (generic, through the
/// runtime, it cost as much as the rest of a cached credential check).
@inlinable
public func constantTimeEquals<A: Collection<UInt8>, B: Collection<UInt8>>(_ a: A, _ b: B) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for (x, y) in zip(a, b) { difference |= x ^ y }
    return difference == 0
}

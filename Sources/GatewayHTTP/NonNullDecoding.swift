/// Optional body fields whose schema does not take null.
///
/// `decodeIfPresent` reads `"field": null` as if the field were absent, so a client that sends
/// null where the contract says integer would silently get the default. These fields are
/// optional but never null: an explicit null is a decoding error that ``DecodingExplanation``
/// turns into a 422 naming the field ("should be an integer, not null").
extension KeyedDecodingContainer {
    /// The value when the key is present, nil when it is absent; a present null throws
    /// `DecodingError.valueNotFound` for `key`.
    public func decodeUnlessAbsent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard contains(key) else { return nil }
        if try decodeNil(forKey: key) {
            throw DecodingError.valueNotFound(
                T.self, DecodingError.Context(codingPath: codingPath + [key], debugDescription: "\(key.stringValue) may be left out but not null")
            )
        }
        return try decode(T.self, forKey: key)
    }
}

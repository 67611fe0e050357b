import Foundation

/// An opaque pagination cursor: the sort key of the last item a page returned, encoded as
/// base64url JSON so clients treat it as a token and never build one by hand.
public struct PageCursor: Codable, Sendable, Equatable {
    /// The last item's sort key (for example its id, or a name and an id).
    public var after: [String]

    public init(after: [String]) { self.after = after }

    public var token: String {
        let data = (try? JSONEncoder().encode(self)) ?? Data()
        return Base64URL.encode(data)
    }

    /// Decodes a token; a malformed one is ``InvalidInput`` naming `cursor`.
    public init(token: String) throws {
        guard token.utf8.count <= 512, let data = Base64URL.decode(token),
            let cursor = try? JSONDecoder().decode(PageCursor.self, from: data)
        else { throw InvalidInput("The cursor is not one this server issued.", field: "cursor") }
        self = cursor
    }
}

extension PageCursor {
    /// A cursor after the item with this id, for lists in id order.
    public init(lastID: Int64) { self.init(after: [String(lastID)]) }

    /// The id in a `cursor` query parameter made by ``init(lastID:)``: nil when absent; a token
    /// this server did not issue is ``InvalidInput`` naming `cursor`.
    public static func lastID(_ raw: String?) throws -> Int64? {
        guard let raw else { return nil }
        let cursor = try PageCursor(token: raw)
        guard cursor.after.count == 1, let id = Int64(cursor.after[0]) else {
            throw InvalidInput("The cursor is not one this server issued.", field: "cursor")
        }
        return id
    }
}

/// One page of a list, with the cursor for the next page when there is one.
public struct Page<Item: Encodable & Sendable>: Encodable, Sendable {
    public var items: [Item]
    public var nextCursor: String?

    public init(items: [Item], nextCursor: String?) {
        self.items = items
        self.nextCursor = nextCursor
    }

    /// The first `limit` of `fetched` (a query asked for `limit + 1` in id order), with a cursor
    /// after the last one when the extra item shows that more follow.
    public init(fetched: [Item], limit: Int, id: (Item) -> Int64) {
        items = Array(fetched.prefix(limit))
        nextCursor = fetched.count > limit ? items.last.map { PageCursor(lastID: id($0)).token } : nil
    }
}

/// Reads `limit` from a query: absent is `defaultLimit`; anything but an integer in
/// `1...maximum` is ``InvalidInput`` (the spec's bounds, so a client learns them rather than
/// getting fewer items than it asked for without a word).
public func pageLimit(_ raw: String?, default defaultLimit: Int = 50, maximum: Int = 200) throws -> Int {
    guard let raw else { return defaultLimit }
    guard let value = Int(raw), (1...maximum).contains(value) else {
        throw InvalidInput("'limit' must be an integer from 1 to \(maximum).", field: "limit")
    }
    return value
}

/// Reads a yes/no query flag: absent is `false`; `true`, `1`, `yes`, `false`, `0` or `no` (any
/// case) say which; anything else is ``InvalidInput`` naming the flag, not a silent `false`.
public func queryFlag(_ raw: String?, name: String) throws -> Bool {
    guard let raw else { return false }
    switch raw.lowercased() {
    case "true", "1", "yes": return true
    case "false", "0", "no": return false
    default: throw InvalidInput("'\(name)' is true or false.", field: name)
    }
}

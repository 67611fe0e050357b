import Foundation
public import GatewayCore
public import Hummingbird
public import HTTPTypes

/// `If-Match` on a write (RFC 9110 §13.1.1): the representation the client last read must still
/// be the current one. A route reads the current representation, asks ``check(_:current:)``, and
/// writes only when it passes; a stale tag is `412 precondition-failed` carrying the current
/// `ETag`, and nothing is written. Without `If-Match`, writes are last-write-wins.
///
/// The check and the write are two steps: two writers racing between them (on two instances)
/// can both pass, within one request's time.
public enum IfMatch {
    /// Throws 412 when the request's `If-Match` does not name `current`'s entity tag (the tag
    /// ``GatewayJSON/response(_:status:headers:)`` gives its `200` answer).
    public static func check(_ request: Request, current: some Encodable) throws {
        guard let wanted = request.headers[.ifMatch] else { return }
        let tag = GatewayJSON.entityTag(of: try GatewayJSON.sharedEncoder.encode(current))
        guard matches(wanted, tag, weak: false) else {
            throw Problem(
                type: "precondition-failed", title: "Changed since you read it", status: .preconditionFailed,
                detail: "If-Match does not name the current version (ETag \(tag)): read it again, then write.",
                headers: [.eTag: tag]
            )
        }
    }

    /// Whether a list of entity tags (`If-None-Match`, `If-Match`) names `tag`: `*` names any;
    /// `weak` compares without the `W/` prefix (as `If-None-Match` does), otherwise both must be
    /// strong and equal.
    public static func matches(_ list: String, _ tag: String, weak: Bool) -> Bool {
        let trimmed = list.trimmingCharacters(in: .whitespaces)
        if trimmed == "*" { return true }
        func opaque(_ value: Substring) -> (weak: Bool, value: Substring) {
            let item = value.trimmingCharacters(in: .whitespaces)
            return item.hasPrefix("W/") ? (true, Substring(item.dropFirst(2))) : (false, Substring(item))
        }
        let target = opaque(Substring(tag))
        return trimmed.split(separator: ",").contains { candidate in
            let item = opaque(candidate)
            return weak ? item.value == target.value : (!item.weak && !target.weak && item.value == target.value)
        }
    }
}

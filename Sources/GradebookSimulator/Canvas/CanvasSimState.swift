import Foundation
import Synchronization

/// The Canvas stand-in's mutable state behind one lock.
final class CanvasSimState: Sendable {
    struct Store {
        var data: CanvasSimData
        var throttled = 0
        var nextOrigin: String?
        var requests: [(path: String, bearer: Bool)] = []
        var oauth = CanvasSimOAuthGrants()
    }

    let pageSizeCap: Int
    private let store: Mutex<Store>
    /// The most requests remembered.
    static let requestLogLimit = 1_000_000

    init(data: CanvasSimData, pageSizeCap: Int) {
        self.pageSizeCap = pageSizeCap
        store = Mutex(Store(data: data))
    }

    var data: CanvasSimData { store.withLock { $0.data } }
    var requests: [(path: String, bearer: Bool)] { store.withLock { $0.requests } }
    var nextOrigin: String? { store.withLock { $0.nextOrigin } }

    func update(_ change: (inout CanvasSimData) -> Void) { store.withLock { change(&$0.data) } }

    /// Reads or changes the OAuth2 grants under the lock.
    func oauth<T>(_ body: (inout CanvasSimOAuthGrants) -> T) -> T { store.withLock { body(&$0.oauth) } }

    /// The student a bearer token stands for: a personal access token, or an OAuth access token
    /// that has not expired or been revoked.
    func student(token: String, now: Date) -> CanvasSimData.Student? {
        store.withLock { store in
            if let student = store.data.student(token: token) { return student }
            guard let id = store.oauth.student(accessToken: token, now: now) else { return nil }
            return store.data.students.first { $0.id == id }
        }
    }

    func setSubmission(student: Int64, assignment: Int64, _ submission: CanvasSimData.Submission) {
        store.withLock { $0.data.submissions[student, default: [:]][assignment] = submission }
    }

    func throttle(next count: Int) { store.withLock { $0.throttled = max(0, count) } }

    func linkNextPages(to origin: String?) { store.withLock { $0.nextOrigin = origin } }

    /// Logs a request and takes one throttled answer if any is due: true when this one is throttled.
    func begin(path: String, bearer: Bool) -> Bool {
        store.withLock { store in
            if store.requests.count < Self.requestLogLimit { store.requests.append((path, bearer)) }
            guard store.throttled > 0 else { return false }
            store.throttled -= 1
            return true
        }
    }
}

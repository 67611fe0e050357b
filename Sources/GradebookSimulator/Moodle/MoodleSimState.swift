import Foundation
import Synchronization

/// The Moodle stand-in's mutable state behind one lock: the data, the site's switches, and the
/// requests it saw.
final class MoodleSimState: Sendable {
    /// One request as the stand-in saw it: the path, the function (web service calls), and
    /// whether it carried a `wstoken`.
    struct Seen: Sendable {
        let path: String
        let function: String?
        let hadToken: Bool
    }

    struct Store {
        var data: MoodleSimData
        var maintenance = false
        var serviceEnabled = true
        /// The next calls of a function answer this exception's error code instead.
        var failing: [String: (code: String, count: Int)] = [:]
        var requests: [Seen] = []
    }

    private let store: Mutex<Store>
    static let requestLogLimit = 1_000_000

    init(data: MoodleSimData) {
        store = Mutex(Store(data: data))
    }

    func read<T>(_ body: (Store) -> T) -> T { store.withLock { body($0) } }
    func change<T>(_ body: (inout Store) -> T) -> T { store.withLock { body(&$0) } }

    func log(_ seen: Seen) {
        store.withLock { if $0.requests.count < Self.requestLogLimit { $0.requests.append(seen) } }
    }

    /// Takes one injected failure of `function`, if any is due.
    func takeFailure(_ function: String) -> String? {
        store.withLock { store in
            guard let failing = store.failing[function], failing.count > 0 else { return nil }
            store.failing[function] = failing.count > 1 ? (failing.code, failing.count - 1) : nil
            return failing.code
        }
    }
}

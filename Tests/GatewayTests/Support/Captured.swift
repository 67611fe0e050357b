import Synchronization

/// A value set inside a test client's closure (which may run concurrently) and read after it.
final class Captured<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    init(_ value: Value) { storage = Mutex(value) }

    var value: Value { storage.withLock { $0 } }

    func set(_ value: Value) { storage.withLock { $0 = value } }
}

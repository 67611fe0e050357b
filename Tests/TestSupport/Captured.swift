import Synchronization

/// A value set inside a test client's closure (which may run concurrently) and read after it.
public final class Captured<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    public init(_ value: Value) { storage = Mutex(value) }

    public var value: Value { storage.withLock { $0 } }

    public func set(_ value: Value) { storage.withLock { $0 = value } }
}

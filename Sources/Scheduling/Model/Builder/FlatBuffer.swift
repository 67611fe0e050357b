/// A fixed-size array for the search's hot loops, in memory allocated once: reading it costs no
/// bounds check in release builds (a debug assertion), no copy-on-write and no exclusivity
/// check. Its owner frees it (``free()``) in its `deinit`; copies share the memory.
struct FlatBuffer<Element> {
    let base: UnsafeMutablePointer<Element>
    let count: Int

    init(_ elements: [Element]) {
        count = elements.count
        base = .allocate(capacity: max(1, elements.count))
        _ = UnsafeMutableBufferPointer(start: base, count: elements.count).initialize(from: elements)
    }

    init(repeating value: Element, count: Int) {
        self.count = count
        base = .allocate(capacity: max(1, count))
        base.initialize(repeating: value, count: count)
    }

    @inline(__always)
    subscript(index: Int) -> Element {
        get {
            assert(index >= 0 && index < count, "FlatBuffer index out of range")
            return base[index]
        }
        nonmutating set {
            assert(index >= 0 && index < count, "FlatBuffer index out of range")
            base[index] = newValue
        }
    }

    func free() {
        base.deinitialize(count: count)
        base.deallocate()
    }
}

import Synchronization

/// A value shared between threads behind a `Mutex`: the one way tscope
/// guards state that more than one thread touches, so the compiler checks
/// what crosses (no lock-and-variables classes).
public final class Locked<Value: Sendable>: Sendable {
    private let mutex: Guarded<Value>

    public init(_ value: Value) { mutex = Guarded(value) }

    /// Runs `body` with the value, exclusively.
    public func withLock<Result: Sendable>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try mutex.withLock { value in try body(&value) }
    }

    /// A copy of the value now.
    public var value: Value {
        get { mutex.withLock { $0 } }
        set { mutex.withLock { $0 = newValue } }
    }
}

/// The first of many reports that count (the first failure of a run, set
/// by whichever thread sees it first); later ones are ignored.
public final class FirstValue<Value: Sendable>: Sendable {
    private let mutex = Guarded<Value?>(nil)

    public init() {}

    /// Keeps `value` unless one was recorded already; true if it was kept.
    @discardableResult
    public func record(_ value: Value) -> Bool {
        mutex.withLock { stored in
            guard stored == nil else { return false }
            stored = value
            return true
        }
    }

    /// the first value recorded, nil before any
    public var value: Value? { mutex.withLock { $0 } }
}

/// Turns a stream of input reads into events: keeps the bytes of an unfinished
/// sequence between reads, and resolves a lone ESC (the Escape key, or the start
/// of a sequence whose rest has not arrived) after a timeout.
///
/// Loop: `feed` what was read, take events with `next()` until nil; when
/// `hasPendingEscape`, wait at most `escapeTimeoutMS` for more input and call
/// `flushEscape()` if none came.
public struct InputDecoder: Sendable {
    /// how long to wait after an ESC for the rest of a sequence [ms]
    public static let escapeTimeoutMS: Int32 = 50

    private var pending: [UInt8] = []
    /// index of the first unparsed byte in `pending`
    private var start = 0

    public init() {
        pending.reserveCapacity(4096)
    }

    public mutating func feed(_ bytes: some Sequence<UInt8>) {
        if start > 0 {
            pending.removeFirst(start)
            start = 0
        }
        pending.append(contentsOf: bytes)
    }

    /// True when the unparsed bytes are an unfinished sequence that starts with
    /// ESC: wait `escapeTimeoutMS`, then call `flushEscape()`.
    public var hasPendingEscape: Bool {
        start < pending.count && pending[start] == 0x1B
            && InputParser.parse(pending[start...]) == .needMore
    }

    /// The next complete event, skipping invalid bytes; nil when more input is needed.
    public mutating func next() -> InputEvent? {
        while start < pending.count {
            switch InputParser.parse(pending[start...]) {
            case .event(let event, let consumed):
                start += consumed
                return event
            case .invalid(let consumed):
                start += max(consumed, 1)
            case .needMore:
                return nil
            }
        }
        return nil
    }

    /// Resolves an unfinished sequence after the timeout: a lone ESC becomes the
    /// Escape key; ESC [ or ESC O alone becomes alt-[ / alt-O; longer unfinished
    /// sequences (and truncated UTF-8) are dropped.
    public mutating func flushEscape() -> InputEvent? {
        guard start < pending.count, InputParser.parse(pending[start...]) == .needMore else { return nil }
        let remaining = pending.count - start
        let first = pending[start]
        let second: UInt8? = remaining > 1 ? pending[start + 1] : nil
        start = pending.count
        guard first == 0x1B else { return nil }
        guard let second else { return .key(KeyEvent(.escape)) }
        guard remaining == 2, second == 0x5B || second == 0x4F else { return nil }
        return .key(KeyEvent(.character(Unicode.Scalar(second)), modifiers: .alt))
    }
}

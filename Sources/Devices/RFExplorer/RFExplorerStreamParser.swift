/// Parses what an RF Explorer sends, as it arrives in USB packets of any
/// size: text lines `#…\r\n` (configuration, model) and sweeps — `$S` with a
/// 1-byte count, `$s` with count × 16 (0 meaning 256), `$z` with a 2-byte
/// big-endian count — each followed by that many samples and `\r\n`.
/// Sweep values land in a buffer allocated once, in dBm, and are lent to
/// the event handler.
///
/// There is no checksum: a sweep counts as corrupt when its `\r\n` is not
/// where the count says; the parser then skips to the next line end.
public struct RFExplorerStreamParser {
    public enum Event: Equatable {
        /// a text line without its `\r\n`
        case line(String)
        /// a good sweep of `count` samples (handed to the event handler)
        case sweep(count: Int)
        /// a sweep whose end was not where its count said
        case corruptSweep
    }

    private enum State {
        case idle
        case line
        case sweepKind
        case sweepCount(kind: UInt8, first: UInt8?)
        case samples
        case carriageReturn
        case lineFeed
        case skipToLineEnd
    }

    /// the longest text line accepted [bytes]; longer is noise
    static let maxLineLength = 160
    /// the most samples a `$z` sweep can announce
    public static let maxPoints = 65_535

    private var values: [Float]
    private var state = State.idle
    private var lineBytes: [UInt8] = []
    private var expected = 0
    private var received = 0

    public init() {
        values = [Float](repeating: .nan, count: Self.maxPoints)
        lineBytes.reserveCapacity(Self.maxLineLength)
    }

    /// Feeds bytes; `onEvent` gets each event, with the sweep's values [dBm]
    /// for `.sweep` (empty otherwise), valid only during the call.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer,
                              onEvent: (Event, _ sweep: UnsafeBufferPointer<Float>) -> Void) {
        for byte in bytes {
            guard let event = step(byte) else { continue }
            if case .sweep(let count) = event {
                values.withUnsafeBufferPointer { onEvent(event, UnsafeBufferPointer(rebasing: $0[0..<count])) }
            } else {
                onEvent(event, UnsafeBufferPointer(start: nil, count: 0))
            }
        }
    }

    private mutating func step(_ byte: UInt8) -> Event? {
        switch state {
        case .idle:
            // `#` lines, and the reset line `(C) Ariel Rocholl …`
            if byte == UInt8(ascii: "#") || byte == UInt8(ascii: "(") {
                lineBytes.removeAll(keepingCapacity: true)
                lineBytes.append(byte)
                state = .line
            } else if byte == UInt8(ascii: "$") {
                state = .sweepKind
            }
        case .line:
            // text lines never contain `#` or `$`: one means the line lost
            // its end and a new message begins
            if byte == UInt8(ascii: "#") || byte == UInt8(ascii: "$") {
                state = .idle
                return step(byte)
            }
            if byte == 0x0a, lineBytes.last == 0x0d {
                lineBytes.removeLast()
                state = .idle
                return .line(String(decoding: lineBytes, as: UTF8.self))
            }
            lineBytes.append(byte)
            if lineBytes.count > Self.maxLineLength { state = .skipToLineEnd }
        case .sweepKind:
            switch byte {
            case UInt8(ascii: "S"), UInt8(ascii: "s"), UInt8(ascii: "z"):
                state = .sweepCount(kind: byte, first: nil)
            default:
                // another `$` message (calibration, screen dump): not ours
                state = .skipToLineEnd
            }
        case .sweepCount(let kind, let first):
            switch kind {
            case UInt8(ascii: "S"):
                expected = Int(byte)
            case UInt8(ascii: "s"):
                expected = (byte == 0 ? 256 : Int(byte)) * 16
            default:
                guard let first else {
                    state = .sweepCount(kind: kind, first: byte)
                    return nil
                }
                expected = Int(first) << 8 | Int(byte)
            }
            received = 0
            state = expected == 0 ? .carriageReturn : .samples
        case .samples:
            values[received] = RFExplorerProtocol.dBm(sample: byte)
            received += 1
            if received == expected { state = .carriageReturn }
        case .carriageReturn:
            if byte == 0x0d {
                state = .lineFeed
            } else {
                state = byte == 0x0a ? .idle : .skipToLineEnd
                return .corruptSweep
            }
        case .lineFeed:
            state = byte == 0x0a ? .idle : .skipToLineEnd
            return byte == 0x0a ? .sweep(count: expected) : .corruptSweep
        case .skipToLineEnd:
            if byte == 0x0a { state = .idle }
        }
        return nil
    }
}

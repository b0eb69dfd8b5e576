/// Parses the bytes a tinySA sends back for one `scanraw` command, as they
/// arrive in USB packets of any size: the echoed command line, `{`, per point
/// `x` + int16 LE, `}`, then the `ch> ` prompt. Values land in a buffer
/// allocated once, in dBm.
///
/// A reply is *good* when exactly the expected number of points arrived
/// between the braces, each with its `x`; anything else (a missing marker,
/// too few or too many points) makes it *corrupt*: the parser then skips to
/// the prompt so the next command starts clean.
public struct TinySAScanParser {
    public enum Event: Equatable {
        /// the reply is still incomplete
        case needMore
        /// a whole good scan is in `values[0..<scanPoints]`
        case scan
        /// a corrupt reply ended (at the prompt)
        case corrupt
    }

    private enum State {
        case awaitingOpen
        case awaitingMarker
        case awaitingLow
        case awaitingHigh(low: UInt8)
        case awaitingPrompt(corrupt: Bool)
    }

    /// dBm per point of the last good scan; capacity `maxPoints`
    public private(set) var values: [Float]
    public private(set) var expectedPoints = 0
    /// points of the last good scan
    public private(set) var scanPoints = 0
    private var count = 0
    private var state = State.awaitingOpen
    private var promptMatched = 0
    private let zeroLevelDB: Float

    public init(maxPoints: Int, zeroLevelDB: Float) {
        values = [Float](repeating: .nan, count: max(1, maxPoints))
        self.zeroLevelDB = zeroLevelDB
    }

    /// Prepares for the reply to a scanraw of `points` points.
    public mutating func expect(points: Int) {
        expectedPoints = min(max(points, 0), values.count)
        count = 0
        state = .awaitingOpen
        promptMatched = 0
    }

    /// Feeds bytes; calls `onEvent` for each reply that ends inside them.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, onEvent: (Event) -> Void) {
        for byte in bytes {
            if let event = step(byte) { onEvent(event) }
        }
    }

    private mutating func step(_ byte: UInt8) -> Event? {
        switch state {
        case .awaitingOpen:
            // the echo and any text before the scan; a prompt here means the
            // shell refused the command (e.g. "usage: scanraw …")
            if byte == TinySAProtocol.scanOpen {
                state = .awaitingMarker
                count = 0
            } else if matchPrompt(byte) {
                return .corrupt
            }
        case .awaitingMarker:
            if byte == TinySAProtocol.scanPointMarker && count < expectedPoints {
                state = .awaitingLow
            } else if byte == TinySAProtocol.scanClose {
                state = .awaitingPrompt(corrupt: count != expectedPoints)
                promptMatched = 0
            } else {
                state = .awaitingPrompt(corrupt: true)
                promptMatched = 0
                if matchPrompt(byte) { return .corrupt }
            }
        case .awaitingLow:
            state = .awaitingHigh(low: byte)
        case .awaitingHigh(let low):
            let raw = Int16(bitPattern: UInt16(low) | UInt16(byte) << 8)
            values[count] = Float(raw) / TinySAProtocol.rawUnitsPerDB - zeroLevelDB
            count += 1
            state = .awaitingMarker
        case .awaitingPrompt(let corrupt):
            if matchPrompt(byte) {
                if corrupt { return .corrupt }
                scanPoints = count
                return .scan
            }
        }
        return nil
    }

    /// Advances the prompt matcher; true when `ch> ` just completed (then
    /// the parser waits for the next command's reply).
    private mutating func matchPrompt(_ byte: UInt8) -> Bool {
        let prompt = TinySAProtocol.prompt
        if byte == prompt[promptMatched] {
            promptMatched += 1
        } else {
            promptMatched = byte == prompt[0] ? 1 : 0
        }
        guard promptMatched == prompt.count else { return false }
        promptMatched = 0
        state = .awaitingOpen
        return true
    }
}

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
        /// matching the replies to the commands sent before the scan
        case preamble
        /// the preamble went wrong: skip this many more prompts, then report corrupt
        case skipping(prompts: Int)
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
    /// the exact bytes expected before the scan's reply (echoes and prompts
    /// of commands sent with it), and how many of them arrived
    private var preamble: [UInt8] = []
    private var preambleMatched = 0
    /// every command before the scan answered with its echo and prompt only
    public var preambleAnswered: Bool { preambleMatched == preamble.count }

    public init(maxPoints: Int, zeroLevelDB: Float) {
        values = [Float](repeating: .nan, count: max(1, maxPoints))
        self.zeroLevelDB = zeroLevelDB
    }

    /// Prepares for the reply to a scanraw of `points` points, preceded by
    /// the replies to `commands` sent before it in the same write: each must
    /// answer with its echo and the prompt only (a command the shell refused
    /// makes the whole reply corrupt).
    public mutating func expect(points: Int, after commands: [String] = []) {
        expectedPoints = min(max(points, 0), values.count)
        count = 0
        promptMatched = 0
        preamble = commands.flatMap { Array(($0 + "\r\n").utf8) + TinySAProtocol.prompt }
        preambleMatched = 0
        state = preamble.isEmpty ? .awaitingOpen : .preamble
    }

    /// Feeds bytes; calls `onEvent` for each reply that ends inside them.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, onEvent: (Event) -> Void) {
        for byte in bytes {
            if let event = step(byte) { onEvent(event) }
        }
    }

    private mutating func step(_ byte: UInt8) -> Event? {
        switch state {
        case .preamble:
            if byte == preamble[preambleMatched] {
                preambleMatched += 1
                if preambleMatched == preamble.count { state = .awaitingOpen }
                return nil
            }
            // prompts still to come: those of the preamble not yet complete, and the scan's
            // (a prompt cut in the middle keeps the part that arrived)
            var prompts = 1
            var index = 0
            promptMatched = 0
            while let end = TinySADriver.end(of: TinySAProtocol.prompt, in: preamble, from: index) {
                if end > preambleMatched {
                    prompts += 1
                    let start = end - TinySAProtocol.prompt.count
                    if start < preambleMatched { promptMatched = preambleMatched - start }
                }
                index = end
            }
            state = .skipping(prompts: prompts)
            return step(byte)
        case .skipping(let prompts):
            if matchPrompt(byte) {
                if prompts <= 1 { return .corrupt }
                state = .skipping(prompts: prompts - 1)
            }
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

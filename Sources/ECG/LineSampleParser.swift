/// Turns the text lines hobby ECG boards print into samples: one value per
/// line, or one value per lead separated by commas, semicolons, tabs or spaces.
/// Lines that are not exactly `leadCount` numbers are skipped and counted, so
/// are NaN and infinite values; a partial line waits for its newline.
public struct LineSampleParser: Sendable {
    public let leadCount: Int
    /// physical value = (value − baseline) / gain [mV]
    public let gain: Double
    public let baseline: Double
    /// lines skipped as garbage so far
    public private(set) var garbageLines = 0
    /// lines skipped because a value was NaN or infinite
    public private(set) var nonFiniteLines = 0
    /// longest line kept while waiting for its newline [bytes]; longer is garbage
    static let maximumLineLength = 256
    static let separators: Set<UInt8> = [UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "\t"), UInt8(ascii: " ")]

    private var line: [UInt8] = []
    private var values: [Double]
    private var overlong = false

    public init(leadCount: Int, gain: Double = 1, baseline: Double = 0) {
        self.leadCount = max(1, leadCount)
        self.gain = gain == 0 ? 1 : gain
        self.baseline = baseline
        values = Array(repeating: 0, count: max(1, leadCount))
        line.reserveCapacity(Self.maximumLineLength)
    }

    /// Parses `bytes`; calls `emit` with one sample per lead [mV] for every good line.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, emit: ([Double]) -> Void) {
        for byte in bytes {
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                finishLine(emit: emit)
            } else if line.count < Self.maximumLineLength {
                line.append(byte)
            } else {
                overlong = true
            }
        }
    }

    private mutating func finishLine(emit: ([Double]) -> Void) {
        defer {
            line.removeAll(keepingCapacity: true)
            overlong = false
        }
        if overlong {
            garbageLines += 1
            return
        }
        if line.isEmpty { return }
        var field = 0
        var start = 0
        var finite = true
        for end in 0...line.count {
            guard end == line.count || Self.separators.contains(line[end]) else { continue }
            defer { start = end + 1 }
            if end == start { continue } // repeated separators, as in "1, 2"
            guard field < leadCount, let value = Self.number(line[start..<end]) else {
                garbageLines += 1
                return
            }
            finite = finite && value.isFinite
            values[field] = (value - baseline) / gain
            field += 1
        }
        guard field == leadCount else {
            if field > 0 || !line.allSatisfy({ Self.separators.contains($0) }) { garbageLines += 1 }
            return
        }
        guard finite else {
            nonFiniteLines += 1
            return
        }
        emit(values)
    }

    private static func number(_ bytes: ArraySlice<UInt8>) -> Double? {
        guard bytes.count <= 32, bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        return Double(String(decoding: bytes, as: UTF8.self))
    }
}

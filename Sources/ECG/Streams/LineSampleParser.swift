import Foundation

/// Turns the text lines hobby ECG boards print into samples: one value per
/// line, or one value per lead separated by commas, semicolons, tabs or spaces.
/// Lines that are not exactly `leadCount` numbers are skipped and counted, so
/// are NaN and infinite values; a partial line waits for its newline.
///
/// A line starting with `{` is JSON, as a phone or BLE bridge sends it:
/// `{"time": 12.5, "amplitude": 0.42}` one sample; `"amplitude": [0.42, 0.45, …]`
/// a packet of consecutive samples (one lead), or with several leads one
/// sample per lead (`[0.1, 0.2]`) or a packet of them (`[[0.1, 0.2], …]`).
/// `time` [s] is optional and not used for timing: the sample clock is
/// `--rate`. Anything else in such a line (no amplitude, a string) is garbage.
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
    static let maximumLineLength = 65_536
    static let separators: Set<UInt8> = [UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "\t"), UInt8(ascii: " ")]

    private var line: [UInt8] = []
    private var values: [Double]
    private var overlong = false

    public init(leadCount: Int, gain: Double = 1, baseline: Double = 0) {
        self.leadCount = max(1, leadCount)
        self.gain = gain == 0 ? 1 : gain
        self.baseline = baseline
        values = Array(repeating: 0, count: max(1, leadCount))
        line.reserveCapacity(256)
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
        if line.first == UInt8(ascii: "{") {
            finishJSONLine(emit: emit)
            return
        }
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

    /// One JSON line: `time` optional, `amplitude` a number, a list or a list of lists.
    private struct JSONSample: Decodable {
        enum Amplitude: Decodable {
            case one(Double), list([Double]), frames([[Double]])

            init(from decoder: Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let value = try? container.decode(Double.self) {
                    self = .one(value)
                } else if let values = try? container.decode([Double].self) {
                    self = .list(values)
                } else {
                    self = .frames(try container.decode([[Double]].self))
                }
            }
        }
        var time: Double?
        var amplitude: Amplitude
    }

    private mutating func finishJSONLine(emit: ([Double]) -> Void) {
        guard let sample = try? JSONDecoder().decode(JSONSample.self, from: Data(line)) else {
            garbageLines += 1
            return
        }
        // frames of `leadCount` values each
        let frames: [[Double]]
        switch sample.amplitude {
        case .one(let value) where leadCount == 1: frames = [[value]]
        case .list(let values) where leadCount == 1: frames = values.map { [$0] }
        case .list(let values): frames = [values]
        case .frames(let list): frames = list
        default: frames = []
        }
        guard !frames.isEmpty, frames.allSatisfy({ $0.count == leadCount }) else {
            garbageLines += 1
            return
        }
        for frame in frames {
            guard frame.allSatisfy(\.isFinite) else {
                nonFiniteLines += 1
                continue
            }
            for lead in frame.indices { values[lead] = (frame[lead] - baseline) / gain }
            emit(values)
        }
    }

    private static func number(_ bytes: ArraySlice<UInt8>) -> Double? {
        guard bytes.count <= 32, bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        return Double(String(decoding: bytes, as: UTF8.self))
    }
}

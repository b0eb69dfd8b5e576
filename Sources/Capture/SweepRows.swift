import Signals

/// One row of a sweep file as its tool printed it (an rtl_power hop line, a
/// hackrf_sweep line or `-B` record): what a frame alone cannot say, so that
/// writing the frame back in the same format gives the same bytes.
public struct SweepRow: Sendable, Equatable {
    /// hop edges as printed [Hz]
    public var lowHz: Double
    public var highHz: Double
    /// bin width as printed (`Hz step`, `hz_bin_width`) [Hz]
    public var stepHz: Double
    /// rtl_power: FFTs integrated; hackrf_sweep: FFT size N
    public var samples: Int64
    /// the row's printed time [µs since the Unix epoch, UTC]
    public var timeMicros: Int64
    /// digits printed after the seconds (0…6): hackrf_sweep prints 6 since
    /// 2019, the 2018.01.1 release and rtl_power none
    public var timeDecimals: Int
    /// soapy_power_bin: the record's time_start and time_stop [s since the epoch], exact
    public var timeStart: Double
    public var timeStop: Double
    /// the row's values are frame bins `firstBin ..< firstBin + binCount`
    public var firstBin: Int
    public var binCount: Int
    /// rtl_power printed the last value once more
    public var repeatsLast: Bool
    /// how the text line ended
    public var lineEnd: LineEnd
    /// where the row's values start in `SweepRowLayout.ownValues` when a later
    /// row of the frame overwrote some of its bins (overlapping hops); nil if
    /// the frame's bins hold them
    public var ownValuesAt: Int?

    public init(lowHz: Double, highHz: Double, stepHz: Double, samples: Int64, timeMicros: Int64,
                firstBin: Int, binCount: Int, repeatsLast: Bool = false, ownValuesAt: Int? = nil,
                timeStart: Double = 0, timeStop: Double = 0, lineEnd: LineEnd = .lf, timeDecimals: Int = 6) {
        self.lowHz = lowHz
        self.timeDecimals = min(max(timeDecimals, 0), 6)
        self.highHz = highHz
        self.stepHz = stepHz
        self.samples = samples
        self.timeMicros = timeMicros
        self.timeStart = timeStart
        self.timeStop = timeStop
        self.firstBin = firstBin
        self.binCount = binCount
        self.repeatsLast = repeatsLast
        self.lineEnd = lineEnd
        self.ownValuesAt = ownValuesAt
    }
}

/// How a text row ended: "\n", "\r\n" (a file written on Windows in text
/// mode), or not at all (a last line without a newline).
public enum LineEnd: UInt8, Sendable, Equatable {
    case lf, crlf, none

    /// Writes the ending; returns bytes written (≤ 2).
    func write(to out: UnsafeMutablePointer<UInt8>) -> Int {
        switch self {
        case .lf: out[0] = UInt8(ascii: "\n"); return 1
        case .crlf: out[0] = UInt8(ascii: "\r"); out[1] = UInt8(ascii: "\n"); return 2
        case .none: return 0
        }
    }
}

/// How a file spelled values that are not numbers: C99/glibc (`-inf`, `nan`,
/// `-nan`) or the old Microsoft C runtime, which prints −inf as `-1.#INF` and
/// NaN as `1.#QNAN` / `-1.#IND`, rounded like digits to the precision asked
/// for (`-1.#J` and `1.#R` at `%.2f`).
public enum NonFiniteSpelling: Sendable, Equatable {
    case c
    case msvc(decimals: Int)

    /// the Microsoft runtime's text after "1." for each kind, before rounding
    private static let msvcWords: [(word: [UInt8], value: Float)] = [
        (Array("#INF".utf8), .infinity),
        (Array("#IND".utf8), .nan),
        (Array("#QNAN".utf8), .nan),
        (Array("#SNAN".utf8), .nan),
    ]

    /// Character `index` of the Microsoft runtime's fraction text for a word
    /// at `decimals` digits: the word padded with zeros, cut to `decimals`
    /// characters, the last raised by one when the next is '5' or above (it
    /// rounds them as if they were digits).
    static func msvcCharacter(_ word: [UInt8], decimals: Int, at index: Int) -> UInt8 {
        func padded(_ i: Int) -> UInt8 { i < word.count ? word[i] : UInt8(ascii: "0") }
        guard index == decimals - 1 else { return padded(index) }
        return padded(index) &+ (padded(decimals) >= UInt8(ascii: "5") ? 1 : 0)
    }

    /// Reads a Microsoft runtime spelling (`-1.#J`, `-1.#INF`, `1.#QNAN`,
    /// `-1.#IND`, `1.#R`, `-1.$`, …): the value (−inf/+inf or NaN, the sign as
    /// written) and the precision it was printed at; nil for anything else.
    /// A text that fits both #INF and #IND (`-1.#J`) is read as infinity.
    static func parseMSVC(_ field: UnsafeBufferPointer<UInt8>) -> (value: Float, decimals: Int)? {
        var i = 0
        let negative = field.first == UInt8(ascii: "-")
        if negative || field.first == UInt8(ascii: "+") { i = 1 }
        guard field.count >= i + 3, field[i] == UInt8(ascii: "1"), field[i + 1] == UInt8(ascii: ".") else { return nil }
        let start = i + 2
        let decimals = field.count - start
        guard decimals <= 8 else { return nil }
        for (word, value) in msvcWords
        where (0..<decimals).allSatisfy({ field[start + $0] == msvcCharacter(word, decimals: decimals, at: $0) }) {
            return (negative ? -value : value, decimals)
        }
        return nil
    }

    /// Writes a non-finite `value` in this spelling; returns bytes written (≤ 12).
    func write(_ value: Float, to out: UnsafeMutablePointer<UInt8>) -> Int {
        guard case .msvc(let decimals) = self else { return FixedPointFormat.writeTwoDecimals(value, to: out) }
        var n = 0
        if value.sign == .minus { out[0] = UInt8(ascii: "-"); n = 1 }
        out[n] = UInt8(ascii: "1")
        out[n + 1] = UInt8(ascii: ".")
        n += 2
        let word = value.isNaN ? (value.sign == .minus ? Self.msvcWords[1].word : Self.msvcWords[2].word)
            : Self.msvcWords[0].word
        for index in 0..<decimals { out[n + index] = Self.msvcCharacter(word, decimals: decimals, at: index) }
        return n + decimals
    }
}

/// The rows one frame was read from, in the order the file held them.
public struct SweepRowLayout: Sendable, Equatable {
    /// the format whose rows these are (rtl_power, hackrf_sweep, hackrf_sweep_binary, soapy_power_bin)
    public var format: CaptureFormat
    public var spelling: NonFiniteSpelling
    public var rows: [SweepRow]
    /// values of rows whose frame bins a later row overwrote
    public var ownValues: [Float]

    public init(format: CaptureFormat, spelling: NonFiniteSpelling = .c, rows: [SweepRow] = [],
                ownValues: [Float] = []) {
        self.format = format
        self.spelling = spelling
        self.rows = rows
        self.ownValues = ownValues
    }

    /// true when every row's values lie inside a frame of `binCount` bins
    /// (and in `ownValues`): only then can a writer use the rows.
    public func fits(binCount: Int) -> Bool {
        rows.allSatisfy { row in
            guard row.binCount > 0, row.firstBin >= 0 else { return false }
            if let at = row.ownValuesAt { return at >= 0 && at + row.binCount <= ownValues.count }
            return row.firstBin + row.binCount <= binCount
        }
    }

    /// Calls `body` with each row and its values, in file order.
    public func forEachRow(of frame: SpectrumFrame,
                           _ body: (SweepRow, UnsafeBufferPointer<Float>) throws -> Void) rethrows {
        try frame.powerDB.withUnsafeBufferPointer { bins in
            try ownValues.withUnsafeBufferPointer { own in
                for row in rows {
                    if let at = row.ownValuesAt {
                        try body(row, UnsafeBufferPointer(rebasing: own[at..<(at + row.binCount)]))
                    } else {
                        try body(row, UnsafeBufferPointer(rebasing: bins[row.firstBin..<(row.firstBin + row.binCount)]))
                    }
                }
            }
        }
    }
}

/// Readers that know the rows each frame came from.
public protocol SweepRowReporting: AnyObject {
    /// rows of the frame the last `next` returned; nil if unknown
    var rows: SweepRowLayout? { get }
}

/// Readers that read values a file marks as missing (`nan`): counted for the
/// user, kept as NaN ("no data") in the frames.
public protocol MissingValueReporting: AnyObject {
    /// values read as NaN so far
    var missingValues: Int { get }
}

/// Writers that can print a frame row by row as it was read.
public protocol SweepRowWriting: AnyObject {
    /// Writes `frame` through `rows` when they are this writer's format and
    /// fit the frame, else as `write(_:)` would.
    func write(_ frame: SpectrumFrame, rows: SweepRowLayout?) throws
}

extension SpectrumFrameWriter {
    /// Writes a frame `reader` just returned, with its rows where both keep them.
    public func write(_ frame: SpectrumFrame, readBy reader: SpectrumFrameReader) throws {
        if let rowWriter = self as? SweepRowWriting, let rows = (reader as? SweepRowReporting)?.rows {
            try rowWriter.write(frame, rows: rows)
        } else {
            try write(frame)
        }
    }
}

/// Collects the rows of the frame being assembled (used by the sweep readers).
struct SweepRowRecorder {
    /// rows of the frame in progress
    private(set) var pending: SweepRowLayout
    /// rows of the last frame emitted
    private(set) var emitted: SweepRowLayout?
    /// for each bin of the frame in progress: the index of the row that wrote it, or −1
    private var owner: [Int32] = []

    init(format: CaptureFormat) {
        pending = SweepRowLayout(format: format)
    }

    /// Starts a new frame.
    mutating func begin() {
        pending.rows.removeAll(keepingCapacity: true)
        pending.ownValues.removeAll(keepingCapacity: true)
        for i in owner.indices { owner[i] = -1 }
    }

    /// Records a row about to be placed at bins `first ..< first + count` of
    /// `assembler`; rows whose bins it overwrites first keep their values.
    mutating func add(_ row: SweepRow, assembler: SweepAssembler) {
        let end = row.firstBin + row.binCount
        if owner.count < end { owner.append(contentsOf: repeatElement(-1, count: end - owner.count)) }
        let index = Int32(pending.rows.count)
        for bin in row.firstBin..<end {
            let previous = Int(owner[bin])
            if previous >= 0 && pending.rows[previous].ownValuesAt == nil {
                let earlier = pending.rows[previous]
                pending.rows[previous].ownValuesAt = pending.ownValues.count
                assembler.appendBins(earlier.firstBin, count: earlier.binCount, to: &pending.ownValues)
            }
            owner[bin] = index
        }
        pending.rows.append(row)
    }

    mutating func setSpelling(_ spelling: NonFiniteSpelling) { pending.spelling = spelling }

    /// Hands the rows of the frame just finished to `emitted`.
    mutating func emit() {
        if emitted == nil { emitted = SweepRowLayout(format: pending.format) }
        swap(&emitted!, &pending)
        pending.spelling = emitted!.spelling
        begin()
    }
}

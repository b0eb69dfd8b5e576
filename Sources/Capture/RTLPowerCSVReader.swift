import Signals

/// Reads rtl_power CSV (osmocom rtl-sdr, src/rtl_power.c `csv_dbm`):
/// `date, time, Hz low, Hz high, Hz step, samples, dB, dB, …`, one line per
/// hop, every hop of one interval sharing the timestamp (1 s resolution).
///
/// - rtl_power prints each hop's bins and then the last bin once more
///   (`dbm = avg[i2]` after the loop): a line whose last value repeats the one
///   before it and has one value more than (high − low)/step is read without
///   that repeat. Lines without it (soapy_power's rtl_power writer) keep all.
/// - Hops with one timestamp are assembled into one frame, each at the bin
///   nearest its lower edge: hop edges are `freq ± int(bandwidth/2)`, not
///   multiples of the step, and with cropping (`-c`) a hop may differ from
///   (high − low)/step by up to 2 bins (rtl_power truncates the crop twice).
/// - A frame ends when the timestamp changes or the frequency starts again.
/// - The first sweep fixes the hop layout; a later hop with another edge or
///   value count, another bin width, a time going backwards or a malformed
///   line is damage: skipped and counted, or fatal when strict.
public final class RTLPowerCSVReader: SpectrumFrameReader, DamageReporting {
    public private(set) var metadata = CaptureMetadata(format: "rtl_power")
    public var skipped: Int { damage.skipped }
    public var firstSkipped: CaptureError? { damage.first }
    public var progress: (done: Int, total: Int?) { (lines.consumedBytes, lines.input.totalBytes) }

    /// hops a value count may differ from (high − low)/step by [bins]
    static let hopWidthTolerance = 2.5

    private let lines: LineReader
    private let parser: SweepLineParser
    private var damage: DamageCounter
    private var assembler = SweepAssembler()
    private var line = SweepLine()
    /// (lower edge [Hz], bins) of each hop of the first sweep
    private var layout: [(lowHz: Double, bins: Int)] = []
    private var layoutFixed = false
    private var hopIndex = 0
    private var lastHopLowHz = 0.0
    private var captureBinWidthHz: Double?
    private var lastFrameTimestamp = -Double.infinity
    private var framesRead = 0

    public init(input: ByteInput, options: CaptureReadOptions = CaptureReadOptions()) {
        lines = LineReader(input: input)
        parser = SweepLineParser(timeZone: options.timeZone)
        damage = DamageCounter(strict: options.strict)
    }

    public convenience init(path: String, options: CaptureReadOptions = CaptureReadOptions()) throws {
        self.init(input: try ByteInput(path: path), options: options)
    }

    public func next(into frame: inout SpectrumFrame) throws -> Bool {
        while let text = try lines.next() {
            if SweepLineParser.isIgnorable(text.bytes) { continue }
            if let problem = parser.parse(text.bytes, into: &line) {
                try damage.record(error(text, problem))
                continue
            }
            guard let bins = hopBins() else {
                let span = (line.highHz - line.lowHz) / line.stepHz
                try damage.record(error(text, "expected about \(Int(saturating: span.rounded())) values (+1 repeated) "
                    + "for \(Int(saturating: line.lowHz))–\(Int(saturating: line.highHz)) Hz at \(line.stepHz) Hz steps, found \(line.valueCount)"))
                continue
            }
            if let width = captureBinWidthHz, width != line.stepHz {
                try damage.record(error(text, "bin width \(line.stepHz) Hz differs from \(width) Hz "
                    + "of the lines before (mixed bin widths)"))
                continue
            }
            if assembler.inProgress {
                if line.timestamp < assembler.timestamp {
                    try damage.record(error(text, "time goes backwards (before the previous line's)"))
                    continue
                }
                if line.timestamp > assembler.timestamp || line.lowHz <= lastHopLowHz {
                    lines.pushBack()
                    return emit(into: &frame)
                }
            } else if line.timestamp < lastFrameTimestamp {
                try damage.record(error(text, "time goes backwards (before the previous frame's)"))
                continue
            }
            if let problem = checkLayout(bins: bins) {
                try damage.record(error(text, problem))
                continue
            }
            if !assembler.inProgress {
                assembler.begin(startHz: line.lowHz, binWidthHz: line.stepHz, timestamp: line.timestamp)
                hopIndex = 0
            }
            let problem = parser.withValues(count: bins) { assembler.place(lowHz: line.lowHz, values: $0) }
            if let problem {
                try damage.record(error(text, problem))
                continue
            }
            captureBinWidthHz = line.stepHz
            if !layoutFixed { layout.append((line.lowHz, bins)) }
            hopIndex += 1
            lastHopLowHz = line.lowHz
        }
        if assembler.inProgress { return emit(into: &frame) }
        if framesRead == 0 {
            let detail = damage.skipped > 0
                ? "no valid rtl_power line (\(damage.skipped) damaged; first: \(damage.first?.description ?? ""))"
                : "empty: expected rtl_power lines 'date, time, Hz low, Hz high, Hz step, samples, dB, …'"
            throw CaptureError(file: lines.input.name, detail)
        }
        return false
    }

    /// Bins this line contributes: without rtl_power's repeated last value
    /// when it is there; nil if the count does not fit the hop's width.
    private func hopBins() -> Int? {
        let span = (line.highHz - line.lowHz) / line.stepHz
        let count = line.valueCount
        let repeated = count >= 2 && parser.withValues(count: count) { $0[count - 1] == $0[count - 2] }
        if repeated && abs(Double(count - 1) - span) <= Self.hopWidthTolerance { return count - 1 }
        if abs(Double(count) - span) <= Self.hopWidthTolerance { return count }
        return nil
    }

    /// Later sweeps must repeat the first sweep's hops.
    private func checkLayout(bins: Int) -> String? {
        guard layoutFixed else { return nil }
        let index = assembler.inProgress ? hopIndex : 0
        guard index < layout.count else {
            return "hop \(index + 1) of a sweep that had \(layout.count) hops at first"
        }
        let expected = layout[index]
        guard expected.lowHz == line.lowHz, expected.bins == bins else {
            return "expected hop \(index + 1) at \(Int(saturating: expected.lowHz)) Hz with \(expected.bins) values "
                + "as in the first sweep, found \(Int(saturating: line.lowHz)) Hz with \(bins)"
        }
        return nil
    }

    private func emit(into frame: inout SpectrumFrame) -> Bool {
        assembler.finish(into: &frame)
        layoutFixed = true
        lastFrameTimestamp = assembler.timestamp
        framesRead += 1
        if framesRead == 1 {
            metadata.binWidthHz = frame.binWidthHz
            metadata.span = frame.range
            metadata.utcOffsetSeconds = parser.clock.lastOffsetSeconds
        }
        return true
    }

    private func error(_ line: LineReader.Line, _ detail: String) -> CaptureError {
        CaptureError(file: lines.input.name, location: .line(line.number), detail)
    }
}

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
/// - "Hz low" is the centre of the hop's first value, not its lower edge:
///   after the FFT shift value k sits at tuned − rate/2 + k·step
///   (rtl_power.c `csv_dbm`; keenerd's heatmap.py reads it the same way), so
///   a frame starts half a step below it (`SpectrumFrame.startHz` is bin 0's
///   lower edge; SweepReaderState).
/// - A frame ends when the timestamp changes or the frequency starts again.
/// - The first sweep fixes the hop layout; a later hop with another edge or
///   value count, another bin width, a time going backwards or a malformed
///   line is damage: skipped and counted, or fatal when strict.
public final class RTLPowerCSVReader: SpectrumFrameReader, DamageReporting, SweepRowReporting,
    MissingValueReporting {
    public var metadata: CaptureMetadata { state.metadata }
    public var rows: SweepRowLayout? { state.rows.emitted }
    public var missingValues: Int { state.missingValues }
    public var skipped: Int { state.damage.skipped }
    public var firstSkipped: CaptureError? { state.damage.first }
    public var progress: (done: Int, total: Int?) { (lines.consumedBytes, lines.input.totalBytes) }

    /// hops a value count may differ from (high − low)/step by [bins]
    static let hopWidthTolerance = 2.5

    private let lines: LineReader
    private let parser: SweepLineParser
    private var state: SweepReaderState
    private var line = SweepLine()
    /// (lower edge [Hz], bins) of each hop of the first sweep, fixed once it is emitted
    private var layout: [(lowHz: Double, bins: Int)] = []
    private var hopIndex = 0
    private var lastHopLowHz = 0.0
    private var captureBinWidthHz: Double?

    public init(input: ByteInput, options: CaptureReadOptions = CaptureReadOptions()) {
        lines = LineReader(input: input)
        parser = SweepLineParser(timeZone: options.timeZone)
        state = SweepReaderState(format: .rtlPower, strict: options.strict)
    }

    public convenience init(path: String, options: CaptureReadOptions = CaptureReadOptions()) throws {
        self.init(input: try ByteInput(path: path), options: options)
    }

    public func next(into frame: inout SpectrumFrame) throws -> Bool {
        while let text = try parser.nextLine(from: lines, into: &line, damage: &state.damage) {
            guard let bins = hopBins() else {
                let span = (line.highHz - line.lowHz) / line.stepHz
                try state.damage.record(lines.error(at: text,
                    "expected about \(Int(saturating: span.rounded())) values (+1 repeated) "
                    + "for \(Int(saturating: line.lowHz))–\(Int(saturating: line.highHz)) Hz at \(line.stepHz) Hz steps, found \(line.valueCount)"))
                continue
            }
            if let width = captureBinWidthHz, width != line.stepHz {
                try state.damage.record(lines.error(at: text, "bin width \(line.stepHz) Hz differs from \(width) Hz "
                    + "of the lines before (mixed bin widths)"))
                continue
            }
            if state.assembler.inProgress {
                if line.timestamp < state.assembler.timestamp {
                    try state.damage.record(lines.error(at: text, "time goes backwards (before the previous line's)"))
                    continue
                }
                if line.timestamp > state.assembler.timestamp || line.lowHz <= lastHopLowHz {
                    lines.pushBack()
                    return state.emit(into: &frame, utcOffsetSeconds: parser.clock.lastOffsetSeconds)
                }
            } else if line.timestamp < state.lastFrameTimestamp {
                try state.damage.record(lines.error(at: text, "time goes backwards (before the previous frame's)"))
                continue
            }
            if let problem = checkLayout(bins: bins) {
                try state.damage.record(lines.error(at: text, problem))
                continue
            }
            if !state.assembler.inProgress {
                state.begin(startHz: line.lowHz, binWidthHz: line.stepHz, timestamp: line.timestamp)
                hopIndex = 0
            }
            if let spelling = parser.spelling { state.rows.setSpelling(spelling) }
            let row = line.row(text, repeatsLast: bins < line.valueCount)
            let problem = parser.withValues(count: bins) { state.place(row, values: $0) }
            if let problem {
                try state.damage.record(lines.error(at: text, problem))
                continue
            }
            captureBinWidthHz = line.stepHz
            if state.framesRead == 0 { layout.append((line.lowHz, bins)) }
            hopIndex += 1
            lastHopLowHz = line.lowHz
        }
        return try state.endOfInput(into: &frame, file: lines.input.name,
                                    utcOffsetSeconds: parser.clock.lastOffsetSeconds, records: "rtl_power line",
                                    expected: "rtl_power lines 'date, time, Hz low, Hz high, Hz step, samples, dB, …'")
    }

    /// Bins this line contributes: without rtl_power's repeated last value
    /// when it is there; nil if the count does not fit the hop's width.
    private func hopBins() -> Int? {
        let span = (line.highHz - line.lowHz) / line.stepHz
        let count = line.valueCount
        // bit for bit: a repeated `nan` is a repeat too
        let repeated = count >= 2 && parser.withValues(count: count) { $0[count - 1].bitPattern == $0[count - 2].bitPattern }
        if repeated && abs(Double(count - 1) - span) <= Self.hopWidthTolerance { return count - 1 }
        if abs(Double(count) - span) <= Self.hopWidthTolerance { return count }
        return nil
    }

    /// Later sweeps must repeat the first sweep's hops.
    private func checkLayout(bins: Int) -> String? {
        guard state.framesRead > 0 else { return nil }
        let index = state.assembler.inProgress ? hopIndex : 0
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
}

extension RTLPowerCSVReader: PathOpenedFrameReader {}

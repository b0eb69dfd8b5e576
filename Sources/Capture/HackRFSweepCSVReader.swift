import Signals

/// Reads hackrf_sweep text output (greatscottgadgets/hackrf,
/// host/hackrf-tools/src/hackrf_sweep.c): `date, time.usec, hz_low, hz_high,
/// hz_bin_width, num_samples, dB, …` with N/4 values per 5 MHz slice. Each
/// tuning step prints [f, f+5 MHz] and [f+10, f+15 MHz], so slices arrive out
/// of frequency order; they are assembled into one frame per sweep, a sweep
/// ending when a slice starts again at the first slice's frequency. The
/// frame's time is its last slice's. The bin width is (hz_high − hz_low)/values,
/// exact where the printed hz_bin_width is rounded to 0.01 Hz.
public final class HackRFSweepCSVReader: SpectrumFrameReader, DamageReporting, SweepRowReporting,
    MissingValueReporting {
    public var metadata: CaptureMetadata { state.metadata }
    public var rows: SweepRowLayout? { state.rows.emitted }
    public var missingValues: Int { state.missingValues }
    public var skipped: Int { state.damage.skipped }
    public var firstSkipped: CaptureError? { state.damage.first }
    public var progress: (done: Int, total: Int?) { (lines.consumedBytes, lines.input.totalBytes) }

    private let lines: LineReader
    private let parser: SweepLineParser
    private var state: SweepReaderState
    private var line = SweepLine()
    /// first slice's lower edge [Hz]: where every sweep starts
    private var sweepStartHz: Double?
    /// values per slice and bin width of the first slice
    private var sliceShape: (values: Int, binWidthHz: Double)?
    private var lastLineTimestamp = -Double.infinity

    public init(input: ByteInput, options: CaptureReadOptions = CaptureReadOptions()) {
        lines = LineReader(input: input)
        parser = SweepLineParser(timeZone: options.timeZone)
        state = SweepReaderState(format: .hackrfSweep, strict: options.strict)
    }

    public convenience init(path: String, options: CaptureReadOptions = CaptureReadOptions()) throws {
        self.init(input: try ByteInput(path: path), options: options)
    }

    public func next(into frame: inout SpectrumFrame) throws -> Bool {
        while let text = try parser.nextLine(from: lines, into: &line, damage: &state.damage) {
            if let problem = checkShape() {
                try state.damage.record(lines.error(at: text, problem))
                continue
            }
            if line.timestamp < lastLineTimestamp {
                try state.damage.record(lines.error(at: text, "time goes backwards (before the previous line's)"))
                continue
            }
            let startHz = sweepStartHz ?? line.lowHz
            if state.assembler.inProgress && line.lowHz == startHz {
                lines.pushBack()
                return state.emit(into: &frame, utcOffsetSeconds: parser.clock.lastOffsetSeconds)
            }
            if !state.assembler.inProgress {
                guard line.lowHz == startHz else {
                    try state.damage.record(lines.error(at: text,
                        "expected a sweep to start at \(Int(saturating: startHz)) Hz, found \(Int(saturating: line.lowHz)) Hz"))
                    continue
                }
                state.begin(startHz: startHz, binWidthHz: sliceShape?.binWidthHz ?? binWidth(),
                                      timestamp: line.timestamp)
            }
            if let spelling = parser.spelling { state.rows.setSpelling(spelling) }
            let row = line.row(text)
            let problem = parser.withValues(count: line.valueCount) { state.place(row, values: $0) }
            if let problem {
                try state.damage.record(lines.error(at: text, problem))
                continue
            }
            sweepStartHz = startHz
            if sliceShape == nil { sliceShape = (line.valueCount, binWidth()) }
            state.assembler.timestamp = line.timestamp
            lastLineTimestamp = line.timestamp
        }
        return try state.endOfInput(into: &frame, file: lines.input.name,
                                    utcOffsetSeconds: parser.clock.lastOffsetSeconds, records: "hackrf_sweep line",
                                    expected: "hackrf_sweep lines 'date, time, hz_low, hz_high, hz_bin_width, num_samples, dB, …'")
    }

    /// bin width of the parsed line from its edges [Hz]
    private func binWidth() -> Double { (line.highHz - line.lowHz) / Double(line.valueCount) }

    /// Values must fill the slice (N/4 bins of hz_bin_width) like the first slice.
    private func checkShape() -> String? {
        let span = (line.highHz - line.lowHz) / line.stepHz
        guard abs(span - Double(line.valueCount)) <= 0.5 else {
            return "expected \(Int(saturating: span.rounded())) values for \(Int(saturating: line.lowHz))–\(Int(saturating: line.highHz)) Hz "
                + "at \(line.stepHz) Hz bins, found \(line.valueCount)"
        }
        if let sliceShape {
            guard sliceShape.values == line.valueCount else {
                return "expected \(sliceShape.values) values per slice as in the first line, found \(line.valueCount)"
            }
            guard abs(binWidth() - sliceShape.binWidthHz) <= 1e-6 * sliceShape.binWidthHz else {
                return "bin width \(line.stepHz) Hz differs from the first line's (mixed bin widths)"
            }
        }
        return nil
    }
}

extension HackRFSweepCSVReader: PathOpenedFrameReader {}

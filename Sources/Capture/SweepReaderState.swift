import Signals

/// What the sweep readers (rtl_power, hackrf_sweep text and `-B`,
/// soapy_power_bin) share: slices assembled into frames, damage counted or
/// thrown, and the metadata the first frame fixes.
struct SweepReaderState {
    private(set) var metadata: CaptureMetadata
    var assembler = SweepAssembler()
    var damage: DamageCounter
    private(set) var framesRead = 0
    /// time of the last frame emitted [s since the Unix epoch]
    private(set) var lastFrameTimestamp = -Double.infinity
    /// the rows each frame was read from, for writing it back as it was
    var rows: SweepRowRecorder
    /// values read as NaN ("no data") in rows kept so far
    var missingValues = 0
    /// rtl_power's "Hz low" is the centre of a hop's first value, not its
    /// lower edge (RTLPowerCSVReader): slices are placed by it, and the frame
    /// emitted starts half a bin lower
    private let lowHzIsFirstValueCentre: Bool

    init(format: CaptureFormat, strict: Bool) {
        metadata = CaptureMetadata(format: format.rawValue)
        lowHzIsFirstValueCentre = format == .rtlPower
        damage = DamageCounter(strict: strict)
        rows = SweepRowRecorder(format: format)
    }

    /// Starts a frame (assembler and rows).
    mutating func begin(startHz: Double, binWidthHz: Double, timestamp: Double) {
        assembler.begin(startHz: startHz, binWidthHz: binWidthHz, timestamp: timestamp)
        rows.begin()
    }

    /// Places one row's values in the frame being built and records the row
    /// (its `firstBin` and `binCount` are set here); returns why not if it cannot.
    mutating func place(_ row: SweepRow, values: UnsafeBufferPointer<Float>) -> String? {
        if let problem = assembler.problem(placing: row.lowHz, count: values.count) { return problem }
        guard let first = assembler.binIndex(row.lowHz) else { return nil }
        var row = row
        row.firstBin = first
        row.binCount = values.count
        rows.add(row, assembler: assembler)
        for value in values where value.isNaN { missingValues += 1 }
        return assembler.place(lowHz: row.lowHz, values: values)
    }

    /// Finishes the frame being built into `frame`; the first one fixes the
    /// capture's bin width, span and (text formats) UTC offset. Returns true.
    mutating func emit(into frame: inout SpectrumFrame, utcOffsetSeconds: Int? = nil) -> Bool {
        assembler.finish(into: &frame)
        if lowHzIsFirstValueCentre { frame.startHz -= frame.binWidthHz / 2 }
        rows.emit()
        lastFrameTimestamp = frame.timestamp
        framesRead += 1
        if framesRead == 1 {
            metadata.binWidthHz = frame.binWidthHz
            metadata.span = frame.range
            if let utcOffsetSeconds { metadata.utcOffsetSeconds = utcOffsetSeconds }
        }
        return true
    }

    /// At the end of the input: emits the frame being built, or returns false
    /// when frames were read before. Input without one frame throws, naming
    /// the damage if there was some:
    /// "no valid `records` (3 damaged; first: …)" or "empty: expected `expected`".
    mutating func endOfInput(into frame: inout SpectrumFrame, file: String, utcOffsetSeconds: Int? = nil,
                             records: String, expected: String) throws -> Bool {
        if assembler.inProgress { return emit(into: &frame, utcOffsetSeconds: utcOffsetSeconds) }
        guard framesRead > 0 else {
            throw CaptureError(file: file, damage.skipped > 0
                ? "no valid \(records) (\(damage.skipped) damaged; first: \(damage.first?.description ?? ""))"
                : "empty: expected \(expected)")
        }
        return false
    }
}

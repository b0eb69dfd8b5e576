import Signals

/// Reads hackrf_sweep `-B` output (host/hackrf-tools/src/hackrf_sweep.c):
/// per 5 MHz slice, in host (little-endian) byte order, `u32 record_length`
/// (bytes after the field: 16 + 4·N/4), `u64 hz_low`, `u64 hz_high`, N/4
/// float32 dB. Slices are assembled into sweeps like the text reader's; the
/// format carries no time, so frame k is stamped k seconds after
/// `CaptureReadOptions.iq.startTime` (0 if not given).
public final class HackRFSweepBinaryReader: SpectrumFrameReader, DamageReporting, SweepRowReporting {
    public var metadata: CaptureMetadata { state.metadata }
    public var rows: SweepRowLayout? { state.rows.emitted }
    public var skipped: Int { state.damage.skipped }
    public var firstSkipped: CaptureError? { state.damage.first }
    public var progress: (done: Int, total: Int?) { (records.offset, records.input.totalBytes) }

    /// largest record accepted [bytes]: hackrf_sweep's N ≤ 8180 needs 16 + 4·2045
    static let maxRecordLength = 1 << 20

    private let records: RecordReader
    private var state: SweepReaderState
    /// dB values of the last record read
    private var values = RecordValues()
    private var sweepStartHz: Double?
    private var sliceShape: (values: Int, binWidthHz: Double)?
    private let startTime: Double
    /// a slice read ahead that starts the next sweep
    private var pending: Slice?

    /// one record's edges [Hz] and value count (values in `values`)
    private struct Slice {
        var lowHz: Double
        var highHz: Double
        var count: Int
    }

    public init(input: ByteInput, options: CaptureReadOptions = CaptureReadOptions()) {
        records = RecordReader(input: input)
        state = SweepReaderState(format: .hackrfSweepBinary, strict: options.strict)
        startTime = options.iq.startTime ?? 0
    }

    public convenience init(path: String, options: CaptureReadOptions = CaptureReadOptions()) throws {
        self.init(input: try ByteInput(path: path), options: options)
    }

    public func next(into frame: inout SpectrumFrame) throws -> Bool {
        if let slice = pending {
            pending = nil
            begin()
            place(slice)
        }
        while let slice = try readSlice() {
            let startHz = sweepStartHz ?? slice.lowHz
            if state.assembler.inProgress && slice.lowHz == startHz {
                pending = slice
                return state.emit(into: &frame)
            }
            if !state.assembler.inProgress {
                sweepStartHz = startHz
                begin()
            }
            place(slice)
        }
        return try state.endOfInput(into: &frame, file: records.input.name, records: "hackrf_sweep -B record",
                                    expected: "hackrf_sweep -B records (u32 length, u64 hz_low, u64 hz_high, float32 dB…)")
    }

    private func begin() {
        state.begin(startHz: sweepStartHz ?? 0, binWidthHz: sliceShape?.binWidthHz ?? 1,
                              timestamp: startTime + Double(state.framesRead))
    }

    private func place(_ slice: Slice) {
        // the format has no time, step or FFT size: the row keeps edges and order
        let row = SweepRow(lowHz: slice.lowHz, highHz: slice.highHz,
                           stepHz: (slice.highHz - slice.lowHz) / Double(slice.count), samples: 0, timeMicros: 0,
                           firstBin: 0, binCount: 0)
        values.withValues(count: slice.count) { _ = state.place(row, values: $0) }
    }

    /// The next well-formed slice (values in `values`), nil at the end.
    private func readSlice() throws -> Slice? {
        while try !records.isAtEnd() {
            let offset = records.offset
            let header = try records.take(20)
            guard header.count == 20 else {
                try state.damage.record(error(at: offset,
                                              "truncated record: expected a 20-byte header, found \(header.count) bytes"))
                return nil
            }
            let length = Int(header.loadUnaligned(fromByteOffset: 0, as: UInt32.self).littleEndian)
            let low = header.loadUnaligned(fromByteOffset: 4, as: UInt64.self).littleEndian
            let high = header.loadUnaligned(fromByteOffset: 12, as: UInt64.self).littleEndian
            guard length > 16, (length - 16) % 4 == 0, length <= Self.maxRecordLength else {
                // without a valid length the next record cannot be found: fatal
                let hint = offset == 0 ? "; if it is raw I/Q, read it with \(IQSampleFormat.commandLineHint)" : ""
                throw error(at: offset,
                            "expected a record length 16 + 4·n (n ≥ 1), found \(length): not hackrf_sweep -B data\(hint)")
            }
            let count = (length - 16) / 4
            let body = try records.take(length - 16)
            guard body.count == length - 16 else {
                try state.damage.record(error(at: offset,
                                              "truncated record: expected \(length - 16) bytes of values, found \(body.count)"))
                return nil
            }
            guard low < high else {
                try state.damage.record(error(at: offset, "expected hz_low < hz_high, found \(low) and \(high)"))
                continue
            }
            guard values.decode(body, count: count) else {
                try state.damage.record(error(at: offset, RecordValues.notDBValues))
                continue
            }
            let width = Double(high - low) / Double(count)
            if let sliceShape {
                guard sliceShape.values == count, abs(width - sliceShape.binWidthHz) <= 1e-6 * sliceShape.binWidthHz else {
                    try state.damage.record(error(at: offset,
                        "expected \(sliceShape.values) values of \(sliceShape.binWidthHz) Hz as in the first record, "
                            + "found \(count) of \(width) Hz (mixed bin widths)"))
                    continue
                }
            } else {
                sliceShape = (count, width)
            }
            if let start = sweepStartHz, Double(low) < start {
                try state.damage.record(error(at: offset,
                                              "slice at \(low) Hz lies below the sweep start \(Int(saturating: start)) Hz"))
                continue
            }
            let start = sweepStartHz ?? Double(low)
            let endBin = ((Double(low) - start) / (sliceShape?.binWidthHz ?? width)).rounded() + Double(count)
            if endBin > Double(state.assembler.lockedCount ?? state.assembler.maxBins) {
                try state.damage.record(error(at: offset, "slice at \(low) Hz lies beyond the band of the first sweep"))
                continue
            }
            return Slice(lowHz: Double(low), highHz: Double(high), count: count)
        }
        return nil
    }

    private func error(at offset: Int, _ detail: String) -> CaptureError {
        CaptureError(file: records.input.name, location: .byte(offset), detail)
    }
}

extension HackRFSweepBinaryReader: PathOpenedFrameReader {}

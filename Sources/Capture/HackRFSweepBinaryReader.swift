import Signals

/// Reads hackrf_sweep `-B` output (host/hackrf-tools/src/hackrf_sweep.c):
/// per 5 MHz slice, in host (little-endian) byte order, `u32 record_length`
/// (bytes after the field: 16 + 4·N/4), `u64 hz_low`, `u64 hz_high`, N/4
/// float32 dB. Slices are assembled into sweeps like the text reader's; the
/// format carries no time, so frame k is stamped k seconds after
/// `CaptureReadOptions.iq.startTime` (0 if not given).
public final class HackRFSweepBinaryReader: SpectrumFrameReader, DamageReporting {
    public private(set) var metadata = CaptureMetadata(format: "hackrf_sweep_binary")
    public var skipped: Int { damage.skipped }
    public var firstSkipped: CaptureError? { damage.first }
    public var progress: (done: Int, total: Int?) { (records.offset, records.input.totalBytes) }

    /// largest record accepted [bytes]: hackrf_sweep's N ≤ 8180 needs 16 + 4·2045
    static let maxRecordLength = 1 << 20

    private let records: RecordReader
    private var damage: DamageCounter
    private var assembler = SweepAssembler()
    private var values: [Float] = []
    private var sweepStartHz: Double?
    private var sliceShape: (values: Int, binWidthHz: Double)?
    private let startTime: Double
    private var framesRead = 0
    /// a slice read ahead that starts the next sweep
    private var pending: (lowHz: Double, count: Int)?

    public init(input: ByteInput, options: CaptureReadOptions = CaptureReadOptions()) {
        records = RecordReader(input: input)
        damage = DamageCounter(strict: options.strict)
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
            if assembler.inProgress && slice.lowHz == startHz {
                pending = slice
                return emit(into: &frame)
            }
            if !assembler.inProgress {
                sweepStartHz = startHz
                begin()
            }
            place(slice)
        }
        if assembler.inProgress { return emit(into: &frame) }
        if framesRead == 0 {
            throw CaptureError(file: records.input.name, damage.skipped > 0
                ? "no valid hackrf_sweep -B record (\(damage.skipped) damaged; first: \(damage.first?.description ?? ""))"
                : "empty: expected hackrf_sweep -B records (u32 length, u64 hz_low, u64 hz_high, float32 dB…)")
        }
        return false
    }

    private func begin() {
        assembler.begin(startHz: sweepStartHz ?? 0, binWidthHz: sliceShape?.binWidthHz ?? 1,
                        timestamp: startTime + Double(framesRead))
    }

    private func place(_ slice: (lowHz: Double, count: Int)) {
        values.withUnsafeBufferPointer { all in
            _ = assembler.place(lowHz: slice.lowHz, values: UnsafeBufferPointer(rebasing: all[0..<slice.count]))
        }
    }

    /// The next well-formed slice (values in `values`), nil at the end.
    private func readSlice() throws -> (lowHz: Double, count: Int)? {
        while try !records.isAtEnd() {
            let offset = records.offset
            let header = try records.take(20)
            guard header.count == 20 else {
                try damage.record(CaptureError(file: records.input.name, location: .byte(offset),
                                               "truncated record: expected a 20-byte header, found \(header.count) bytes"))
                return nil
            }
            let length = Int(header.loadUnaligned(fromByteOffset: 0, as: UInt32.self).littleEndian)
            let low = header.loadUnaligned(fromByteOffset: 4, as: UInt64.self).littleEndian
            let high = header.loadUnaligned(fromByteOffset: 12, as: UInt64.self).littleEndian
            guard length > 16, (length - 16) % 4 == 0, length <= Self.maxRecordLength else {
                // without a valid length the next record cannot be found: fatal
                throw CaptureError(file: records.input.name, location: .byte(offset),
                                   "expected a record length 16 + 4·n (n ≥ 1), found \(length): not hackrf_sweep -B data")
            }
            let count = (length - 16) / 4
            let body = try records.take(length - 16)
            guard body.count == length - 16 else {
                try damage.record(CaptureError(file: records.input.name, location: .byte(offset),
                                               "truncated record: expected \(length - 16) bytes of values, found \(body.count)"))
                return nil
            }
            guard low < high else {
                try damage.record(CaptureError(file: records.input.name, location: .byte(offset),
                                               "expected hz_low < hz_high, found \(low) and \(high)"))
                continue
            }
            if values.count < count { values.append(contentsOf: repeatElement(0, count: count - values.count)) }
            var finite = true
            values.withUnsafeMutableBufferPointer { destination in
                for i in 0..<count {
                    let value = Float(bitPattern: body.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self).littleEndian)
                    destination[i] = value
                    if !(value.isFinite || value == -.infinity) { finite = false }
                }
            }
            guard finite else {
                try damage.record(CaptureError(file: records.input.name, location: .byte(offset),
                                               "record holds NaN or +inf, expected dB values"))
                continue
            }
            let width = Double(high - low) / Double(count)
            if let sliceShape {
                guard sliceShape.values == count, abs(width - sliceShape.binWidthHz) <= 1e-6 * sliceShape.binWidthHz else {
                    try damage.record(CaptureError(file: records.input.name, location: .byte(offset),
                        "expected \(sliceShape.values) values of \(sliceShape.binWidthHz) Hz as in the first record, "
                            + "found \(count) of \(width) Hz (mixed bin widths)"))
                    continue
                }
            } else {
                sliceShape = (count, width)
            }
            if let start = sweepStartHz, Double(low) < start {
                try damage.record(CaptureError(file: records.input.name, location: .byte(offset),
                                               "slice at \(low) Hz lies below the sweep start \(Int(saturating: start)) Hz"))
                continue
            }
            let start = sweepStartHz ?? Double(low)
            let endBin = ((Double(low) - start) / (sliceShape?.binWidthHz ?? width)).rounded() + Double(count)
            if endBin > Double(assembler.lockedCount ?? assembler.maxBins) {
                try damage.record(CaptureError(file: records.input.name, location: .byte(offset),
                                               "slice at \(low) Hz lies beyond the band of the first sweep"))
                continue
            }
            return (Double(low), count)
        }
        return nil
    }

    private func emit(into frame: inout SpectrumFrame) -> Bool {
        assembler.finish(into: &frame)
        framesRead += 1
        if framesRead == 1 {
            metadata.binWidthHz = frame.binWidthHz
            metadata.span = frame.range
        }
        return true
    }
}

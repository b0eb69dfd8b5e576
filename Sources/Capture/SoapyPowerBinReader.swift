import Signals

/// Reads soapy_power's binary format (xmikos/soapy_power, writer.py
/// `SoapyPowerBinFormat`): per frequency hop the magic `SDRFF`, a header
/// packed `<BdddddQQ2x` (version = 2, time_start, time_stop [s since the
/// epoch], start, stop, step [Hz], samples, size [bytes]) and `size` bytes of
/// little-endian float32 dB. Hops ascend in frequency; they are assembled
/// into one frame per sweep (a sweep ends when the frequency starts again),
/// stamped with its last hop's time_stop.
public final class SoapyPowerBinReader: SpectrumFrameReader, DamageReporting {
    public private(set) var metadata = CaptureMetadata(format: "soapy_power_bin")
    public var skipped: Int { damage.skipped }
    public var firstSkipped: CaptureError? { damage.first }
    public var progress: (done: Int, total: Int?) { (records.offset, records.input.totalBytes) }

    static let magic: [UInt8] = Array("SDRFF".utf8)
    /// magic + `<BdddddQQ2x` [bytes]
    static let headerBytes = 5 + 1 + 5 * 8 + 2 * 8 + 2
    static let maxPayloadBytes = 1 << 26

    private struct Hop {
        var timeStop = 0.0
        var startHz = 0.0
        var stepHz = 0.0
        var count = 0
    }

    private let records: RecordReader
    private var damage: DamageCounter
    private var assembler = SweepAssembler()
    private var values: [Float] = []
    private var captureStepHz: Double?
    private var lastHopStartHz = -Double.infinity
    private var lastTime = -Double.infinity
    private var framesRead = 0
    private var pending: Hop?

    public init(input: ByteInput, options: CaptureReadOptions = CaptureReadOptions()) {
        records = RecordReader(input: input)
        damage = DamageCounter(strict: options.strict)
    }

    public convenience init(path: String, options: CaptureReadOptions = CaptureReadOptions()) throws {
        self.init(input: try ByteInput(path: path), options: options)
    }

    public func next(into frame: inout SpectrumFrame) throws -> Bool {
        if let hop = pending {
            pending = nil
            begin(hop)
            place(hop)
        }
        while let hop = try readHop() {
            if assembler.inProgress && hop.startHz <= lastHopStartHz {
                pending = hop
                return emit(into: &frame)
            }
            if !assembler.inProgress { begin(hop) }
            place(hop)
        }
        if assembler.inProgress { return emit(into: &frame) }
        if framesRead == 0 {
            throw CaptureError(file: records.input.name, damage.skipped > 0
                ? "no valid soapy_power_bin record (\(damage.skipped) damaged; first: \(damage.first?.description ?? ""))"
                : "empty: expected soapy_power_bin records starting with 'SDRFF'")
        }
        return false
    }

    private func begin(_ hop: Hop) {
        assembler.begin(startHz: hop.startHz, binWidthHz: hop.stepHz, timestamp: hop.timeStop)
    }

    private func place(_ hop: Hop) {
        values.withUnsafeBufferPointer { all in
            _ = assembler.place(lowHz: hop.startHz, values: UnsafeBufferPointer(rebasing: all[0..<hop.count]))
        }
        assembler.timestamp = hop.timeStop
        lastHopStartHz = hop.startHz
        lastTime = hop.timeStop
    }

    private func readHop() throws -> Hop? {
        while try !records.isAtEnd() {
            let offset = records.offset
            let header = try records.take(Self.headerBytes)
            guard header.count == Self.headerBytes else {
                try damage.record(CaptureError(file: records.input.name, location: .byte(offset),
                    "truncated record: expected a \(Self.headerBytes)-byte header, found \(header.count) bytes"))
                return nil
            }
            guard header.prefix(5).elementsEqual(Self.magic) else {
                throw CaptureError(file: records.input.name, location: .byte(offset),
                                   "expected the magic 'SDRFF' of a soapy_power_bin record")
            }
            let version = header[5]
            func double(_ at: Int) -> Double {
                Double(bitPattern: header.loadUnaligned(fromByteOffset: at, as: UInt64.self).littleEndian)
            }
            let size = header.loadUnaligned(fromByteOffset: 54, as: UInt64.self).littleEndian
            guard version == 2 else {
                throw CaptureError(file: records.input.name, location: .byte(offset + 5),
                                   "expected soapy_power_bin version 2, found \(version)")
            }
            guard size % 4 == 0, size > 0, size <= UInt64(Self.maxPayloadBytes) else {
                throw CaptureError(file: records.input.name, location: .byte(offset + 54),
                                   "expected a payload size that is a positive multiple of 4 bytes, found \(size)")
            }
            let count = Int(size) / 4
            let body = try records.take(Int(size))
            guard body.count == Int(size) else {
                try damage.record(CaptureError(file: records.input.name, location: .byte(offset),
                                               "truncated record: expected \(size) bytes of values, found \(body.count)"))
                return nil
            }
            let hop = Hop(timeStop: double(14), startHz: double(22), stepHz: double(38), count: count)
            let stopHz = double(30)
            if let problem = check(hop, stopHz: stopHz) {
                try damage.record(CaptureError(file: records.input.name, location: .byte(offset), problem))
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
            captureStepHz = hop.stepHz
            return hop
        }
        return nil
    }

    /// What is wrong with a hop's header fields, if anything.
    private func check(_ hop: Hop, stopHz: Double) -> String? {
        guard hop.timeStop.isFinite, hop.startHz.isFinite, stopHz.isFinite, hop.stepHz.isFinite,
              hop.stepHz > 0, stopHz > hop.startHz else {
            return "expected finite times and start < stop, step > 0 [Hz]"
        }
        let span = (stopHz - hop.startHz) / hop.stepHz
        guard abs(span - Double(hop.count)) <= 0.5 else {
            return "expected \(Int(saturating: span.rounded())) values for \(hop.startHz)–\(stopHz) Hz at \(hop.stepHz) Hz, found \(hop.count)"
        }
        if let captureStepHz, abs(captureStepHz - hop.stepHz) > 1e-9 * captureStepHz {
            return "bin width \(hop.stepHz) Hz differs from \(captureStepHz) Hz before (mixed bin widths)"
        }
        if hop.timeStop < lastTime {
            return "time goes backwards (time_stop before the previous record's)"
        }
        let inFrame = assembler.inProgress && hop.startHz > lastHopStartHz
        let start = inFrame ? assembler.startHz : hop.startHz
        let endBin = ((hop.startHz - start) / hop.stepHz).rounded() + Double(hop.count)
        if endBin > Double(assembler.lockedCount ?? assembler.maxBins) {
            return "hop at \(hop.startHz) Hz lies beyond the band of the first sweep"
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

import Signals

/// Reads soapy_power's binary format (xmikos/soapy_power, writer.py
/// `SoapyPowerBinFormat`): per frequency hop the magic `SDRFF`, a header
/// packed `<BdddddQQ2x` (version = 2, time_start, time_stop [s since the
/// epoch], start, stop, step [Hz], samples, size [bytes]) and `size` bytes of
/// little-endian float32 dB. Hops ascend in frequency; they are assembled
/// into one frame per sweep (a sweep ends when the frequency starts again),
/// stamped with its last hop's time_stop.
public final class SoapyPowerBinReader: SpectrumFrameReader, DamageReporting, SweepRowReporting {
    public var metadata: CaptureMetadata { state.metadata }
    public var rows: SweepRowLayout? { state.rows.emitted }
    public var skipped: Int { state.damage.skipped }
    public var firstSkipped: CaptureError? { state.damage.first }
    public var progress: (done: Int, total: Int?) { (records.offset, records.input.totalBytes) }

    static let magic: [UInt8] = Array("SDRFF".utf8)
    /// magic + `<BdddddQQ2x` [bytes]
    static let headerBytes = 5 + 1 + 5 * 8 + 2 * 8 + 2
    static let maxPayloadBytes = 1 << 26

    private struct Hop {
        var timeStart = 0.0
        var timeStop = 0.0
        var startHz = 0.0
        var stopHz = 0.0
        var stepHz = 0.0
        var samples: UInt64 = 0
        var count = 0
    }

    private let records: RecordReader
    private var state: SweepReaderState
    /// dB values of the last record read
    private var values = RecordValues()
    private var captureStepHz: Double?
    private var lastHopStartHz = -Double.infinity
    private var lastTime = -Double.infinity
    private var pending: Hop?

    public init(input: ByteInput, options: CaptureReadOptions = CaptureReadOptions()) {
        records = RecordReader(input: input)
        state = SweepReaderState(format: .soapyPowerBin, strict: options.strict)
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
            if state.assembler.inProgress && hop.startHz <= lastHopStartHz {
                pending = hop
                return state.emit(into: &frame)
            }
            if !state.assembler.inProgress { begin(hop) }
            place(hop)
        }
        return try state.endOfInput(into: &frame, file: records.input.name, records: "soapy_power_bin record",
                                    expected: "soapy_power_bin records starting with 'SDRFF'")
    }

    private func begin(_ hop: Hop) {
        state.begin(startHz: hop.startHz, binWidthHz: hop.stepHz, timestamp: hop.timeStop)
    }

    private func place(_ hop: Hop) {
        // every header field, for writing the record back as it was
        let row = SweepRow(lowHz: hop.startHz, highHz: hop.stopHz, stepHz: hop.stepHz,
                           samples: Int64(bitPattern: hop.samples), timeMicros: 0, firstBin: 0, binCount: 0,
                           timeStart: hop.timeStart, timeStop: hop.timeStop)
        values.withValues(count: hop.count) { _ = state.place(row, values: $0) }
        state.assembler.timestamp = hop.timeStop
        lastHopStartHz = hop.startHz
        lastTime = hop.timeStop
    }

    private func readHop() throws -> Hop? {
        while try !records.isAtEnd() {
            let offset = records.offset
            let header = try records.take(Self.headerBytes)
            guard header.count == Self.headerBytes else {
                try state.damage.record(error(at: offset,
                                              "truncated record: expected a \(Self.headerBytes)-byte header, found \(header.count) bytes"))
                return nil
            }
            guard header.prefix(5).elementsEqual(Self.magic) else {
                throw error(at: offset, "expected the magic 'SDRFF' of a soapy_power_bin record")
            }
            let version = header[5]
            func double(_ at: Int) -> Double {
                Double(bitPattern: header.loadUnaligned(fromByteOffset: at, as: UInt64.self).littleEndian)
            }
            let size = header.loadUnaligned(fromByteOffset: 54, as: UInt64.self).littleEndian
            guard version == 2 else {
                throw error(at: offset + 5, "expected soapy_power_bin version 2, found \(version)")
            }
            guard size % 4 == 0, size > 0, size <= UInt64(Self.maxPayloadBytes) else {
                throw error(at: offset + 54, "expected a payload size that is a positive multiple of 4 bytes, found \(size)")
            }
            let count = Int(size) / 4
            let body = try records.take(Int(size))
            guard body.count == Int(size) else {
                try state.damage.record(error(at: offset,
                                              "truncated record: expected \(size) bytes of values, found \(body.count)"))
                return nil
            }
            let hop = Hop(timeStart: double(6), timeStop: double(14), startHz: double(22), stopHz: double(30),
                          stepHz: double(38), samples: header.loadUnaligned(fromByteOffset: 46, as: UInt64.self).littleEndian,
                          count: count)
            if let problem = check(hop, stopHz: hop.stopHz) {
                try state.damage.record(error(at: offset, problem))
                continue
            }
            guard values.decode(body, count: count) else {
                try state.damage.record(error(at: offset, RecordValues.notDBValues))
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
        let inFrame = state.assembler.inProgress && hop.startHz > lastHopStartHz
        let start = inFrame ? state.assembler.startHz : hop.startHz
        let endBin = ((hop.startHz - start) / hop.stepHz).rounded() + Double(hop.count)
        if endBin > Double(state.assembler.lockedCount ?? state.assembler.maxBins) {
            return "hop at \(hop.startHz) Hz lies beyond the band of the first sweep"
        }
        return nil
    }

    private func error(at offset: Int, _ detail: String) -> CaptureError {
        CaptureError(file: records.input.name, location: .byte(offset), detail)
    }
}

extension SoapyPowerBinReader: PathOpenedFrameReader {}

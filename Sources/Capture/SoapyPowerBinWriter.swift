import Signals

/// Writes frames as soapy_power_bin records (the layout `SoapyPowerBinReader`
/// reads): one record per frame, time_start = time_stop = the frame's time,
/// samples 0 (not known after conversion). A frame read from soapy_power_bin
/// comes with its records (`SweepRowLayout`): then each is written back as it
/// was (times, edges, step, samples, values), the same bytes.
public final class SoapyPowerBinWriter: SpectrumFrameWriter, SweepRowWriting {
    private let sink: OutputSink
    /// one record header, reused for every frame
    private var header = [UInt8](repeating: 0, count: SoapyPowerBinReader.headerBytes)

    public init(sink: OutputSink) {
        self.sink = sink
    }

    public func write(_ frame: SpectrumFrame) throws {
        guard !frame.powerDB.isEmpty else { return }
        try frame.powerDB.withUnsafeBufferPointer { values in
            try writeRecord(timeStart: frame.timestamp, timeStop: frame.timestamp, startHz: frame.startHz,
                            stopHz: frame.stopHz, stepHz: frame.binWidthHz, samples: 0, values: values)
        }
    }

    public func write(_ frame: SpectrumFrame, rows: SweepRowLayout?) throws {
        guard let rows, rows.format == .soapyPowerBin, rows.fits(binCount: frame.powerDB.count) else {
            return try write(frame)
        }
        try rows.forEachRow(of: frame) { row, values in
            try writeRecord(timeStart: row.timeStart, timeStop: row.timeStop, startHz: row.lowHz, stopHz: row.highHz,
                            stepHz: row.stepHz, samples: UInt64(bitPattern: row.samples), values: values)
        }
    }

    private func writeRecord(timeStart: Double, timeStop: Double, startHz: Double, stopHz: Double, stepHz: Double,
                             samples: UInt64, values: UnsafeBufferPointer<Float>) throws {
        header.withUnsafeMutableBytes { raw in
            for (i, byte) in SoapyPowerBinReader.magic.enumerated() { raw[i] = byte }
            raw[5] = 2
            func store(_ value: Double, at offset: Int) {
                raw.storeBytes(of: value.bitPattern.littleEndian, toByteOffset: offset, as: UInt64.self)
            }
            store(timeStart, at: 6)  // [s]
            store(timeStop, at: 14)  // [s]
            store(startHz, at: 22)
            store(stopHz, at: 30)
            store(stepHz, at: 38)
            raw.storeBytes(of: samples.littleEndian, toByteOffset: 46, as: UInt64.self)
            raw.storeBytes(of: UInt64(values.count * 4).littleEndian, toByteOffset: 54, as: UInt64.self)
        }
        try header.withUnsafeBytes { try sink.write($0) }
        try sink.write(UnsafeRawBufferPointer(values))
    }

    public func finish() throws { try sink.flush() }
}

extension SoapyPowerBinWriter: SinkFrameWriter {}

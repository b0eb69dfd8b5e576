import Signals

/// Writes frames as soapy_power_bin records (the layout `SoapyPowerBinReader`
/// reads): one record per frame, time_start = time_stop = the frame's time,
/// samples 0 (not known after conversion).
public final class SoapyPowerBinWriter: SpectrumFrameWriter {
    private let sink: OutputSink
    /// one record header, reused for every frame
    private var header = [UInt8](repeating: 0, count: SoapyPowerBinReader.headerBytes)

    public init(sink: OutputSink) {
        self.sink = sink
    }

    public func write(_ frame: SpectrumFrame) throws {
        guard !frame.powerDB.isEmpty else { return }
        header.withUnsafeMutableBytes { raw in
            for (i, byte) in SoapyPowerBinReader.magic.enumerated() { raw[i] = byte }
            raw[5] = 2
            func store(_ value: Double, at offset: Int) {
                raw.storeBytes(of: value.bitPattern.littleEndian, toByteOffset: offset, as: UInt64.self)
            }
            store(frame.timestamp, at: 6)   // time_start [s]
            store(frame.timestamp, at: 14)  // time_stop [s]
            store(frame.startHz, at: 22)
            store(frame.stopHz, at: 30)
            store(frame.binWidthHz, at: 38)
            raw.storeBytes(of: UInt64(0), toByteOffset: 46, as: UInt64.self)
            raw.storeBytes(of: UInt64(frame.powerDB.count * 4).littleEndian, toByteOffset: 54, as: UInt64.self)
        }
        try header.withUnsafeBytes { try sink.write($0) }
        try frame.powerDB.withUnsafeBytes { try sink.write($0) }
    }

    public func finish() throws { try sink.flush() }
}

/// hackrf_sweep -B: binary records (uint32 LE length, uint64 LE hz_low and
/// hz_high, float32 LE powers).
struct HackRFSweepBinaryCodec: PathReaderCodec, WritableCaptureCodec {
    typealias Reader = HackRFSweepBinaryReader
    let name = "hackrf_sweep_binary"
    let summary = "hackrf_sweep -B's binary records"
    // rtl_sdr and dump1090 write raw I/Q as .bin too: the first record header must make sense
    let recognition = CaptureRecognition(checkedExtensions: ["bin"], mismatch: { head in
        HackRFSweepBinaryCodec.notSweepBinary(head).map {
            "not hackrf_sweep -B: \($0); if it is raw I/Q (rtl_sdr and dump1090 write .bin too) read it with "
                + IQSampleFormat.commandLineHint
        }
    })
    let outputExtensions = ["bin"]

    func makeWriter(path: String, options: CaptureWriteOptions) throws -> any SpectrumFrameWriter {
        HackRFSweepFrameWriter(sink: try makeSink(path: path), layout: .binary)
    }

    /// Why `head` (a file's first bytes) cannot start hackrf_sweep -B output,
    /// or nil if it can: a record opens with its uint32 LE length 16 + 4·bins,
    /// then uint64 LE hz_low < hz_high (hackrf_sweep.c writes them so).
    static func notSweepBinary(_ head: [UInt8]) -> String? {
        guard head.count >= 20 else { return "\(head.count) bytes, shorter than one record header (20 bytes)" }
        func load<T: FixedWidthInteger>(_ offset: Int, _ type: T.Type) -> T {
            var value: T = 0
            for i in (0..<MemoryLayout<T>.size).reversed() { value = value << 8 | T(head[offset + i]) }
            return value
        }
        let length = Int(load(0, UInt32.self))
        guard length > 16, (length - 16) % 4 == 0, length <= HackRFSweepBinaryReader.maxRecordLength else {
            return "the first record's uint32 LE length reads \(length), not 16 + 4·bins"
        }
        let low = load(4, UInt64.self), high = load(12, UInt64.self)
        // 100 GHz: far above any analyzer tscope reads (tscope writes -B for all of them)
        guard low < high, high <= 100_000_000_000 else {
            return "the first record's hz_low \(low) and hz_high \(high) are no band"
        }
        return nil
    }
}

extension CaptureFormat {
    public static let hackrfSweepBinary = CaptureFormat(HackRFSweepBinaryCodec())
}

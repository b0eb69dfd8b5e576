import Foundation

/// Writes sweep blocks in hackrf_sweep's output layouts (release 2022.09.1,
/// host/hackrf-tools/src/hackrf_sweep.c; see Firmware-Notes/hackrf-sweep.md):
///
/// - text: per block two lines
///   `date, time.usec, hz_low, hz_high, hz_bin_width, num_samples, dB, dB, …`,
///   first [f, f + fs/4] then [f + fs/2, f + 3fs/4]; date/time in local time,
///   values `%.2f`;
/// - binary (`-B`): per quarter one record, host byte order:
///   u32 record length (16 + 4·N/4), u64 hz_low, u64 hz_high, N/4 float32 dB.
public final class HackRFSweepWriter {
    public enum Layout: Sendable { case text, binary }

    private let sink: OutputSink
    private let layout: Layout
    /// FFT size N
    private let fftSize: Int
    /// sample rate [Hz]; quarter width is fs/4
    private let sampleRateHz: UInt64
    /// `%.2f` of the bin width, formatted once (it never changes mid-run)
    private let binWidthText: [UInt8]
    /// "YYYY-MM-DD, HH:MM:SS" for `cachedSecond`, recomputed once per second
    private var cachedDateTime = [UInt8](repeating: 0, count: 20)
    private var cachedSecond = Int.min

    public init(sink: OutputSink, layout: Layout, fftSize: Int, sampleRateHz: UInt64 = 20_000_000) {
        self.sink = sink
        self.layout = layout
        self.fftSize = fftSize
        self.sampleRateHz = sampleRateHz
        self.binWidthText = Array(String(format: "%.2f", Double(sampleRateHz) / Double(fftSize)).utf8)
    }

    /// Writes the two kept quarter-spectra of one block.
    /// - Parameters:
    ///   - frequencyHz: the block's sweep frequency f [Hz]
    ///   - seconds, microseconds: arrival time of the USB transfer (Unix time)
    ///   - lower: N/4 dB values for [f, f + fs/4]
    ///   - upper: N/4 dB values for [f + fs/2, f + 3fs/4]
    public func writeBlock(frequencyHz: UInt64, seconds: Int, microseconds: Int,
                           lower: UnsafeBufferPointer<Float>, upper: UnsafeBufferPointer<Float>) throws {
        let quarter = sampleRateHz / 4
        switch layout {
        case .binary:
            try writeRecord(low: frequencyHz, high: frequencyHz + quarter, values: lower)
            try writeRecord(low: frequencyHz + 2 * quarter, high: frequencyHz + 3 * quarter, values: upper)
        case .text:
            try writeLine(seconds: seconds, microseconds: microseconds,
                          low: frequencyHz, high: frequencyHz + quarter, values: lower)
            try writeLine(seconds: seconds, microseconds: microseconds,
                          low: frequencyHz + 2 * quarter, high: frequencyHz + 3 * quarter, values: upper)
        }
    }

    /// Writes one slice of any width as a text line or binary record, with
    /// this writer's bin width and FFT size in the text header (for convert).
    public func writeSlice(lowHz: UInt64, highHz: UInt64, seconds: Int, microseconds: Int,
                           values: UnsafeBufferPointer<Float>) throws {
        switch layout {
        case .binary:
            try writeRecord(low: lowHz, high: highHz, values: values)
        case .text:
            try writeLine(seconds: seconds, microseconds: microseconds, low: lowHz, high: highHz, values: values)
        }
    }

    public func flush() throws { try sink.flush() }

    private func writeRecord(low: UInt64, high: UInt64, values: UnsafeBufferPointer<Float>) throws {
        let valueBytes = values.count * MemoryLayout<Float>.size
        var length = UInt32(16 + valueBytes)
        var edges = (low, high)
        try withUnsafeBytes(of: &length) { try sink.write($0) }
        try withUnsafeBytes(of: &edges) { try sink.write($0) }
        try sink.write(UnsafeRawBufferPointer(values))
    }

    private func writeLine(seconds: Int, microseconds: Int, low: UInt64, high: UInt64,
                           values: UnsafeBufferPointer<Float>) throws {
        // worst case per value: ", " + sign + 39 digits + ".dd"; header < 120
        let worstCase = 120 + values.count * 48
        if worstCase > sink.reservableCapacity {
            throw OutputError(destination: sink.name, detail: "line of \(values.count) values exceeds the output buffer")
        }
        let out = try sink.reserve(worstCase)
        var n = 0
        if seconds != cachedSecond { cacheDateTime(seconds) }
        for b in cachedDateTime { out[n] = b; n += 1 }
        out[n] = UInt8(ascii: "."); n += 1
        FixedPointFormat.writePadded(microseconds, width: 6, to: out + n); n += 6
        n += writeSeparator(out + n)
        n += FixedPointFormat.writeDecimal(low, to: out + n)
        n += writeSeparator(out + n)
        n += FixedPointFormat.writeDecimal(high, to: out + n)
        n += writeSeparator(out + n)
        for b in binWidthText { out[n] = b; n += 1 }
        n += writeSeparator(out + n)
        n += FixedPointFormat.writeDecimal(UInt64(fftSize), to: out + n)
        for value in values {
            n += writeSeparator(out + n)
            n += FixedPointFormat.writeTwoDecimals(value, to: out + n)
        }
        out[n] = UInt8(ascii: "\n"); n += 1
        sink.commit(bytes: n)
    }

    @inline(__always)
    private func writeSeparator(_ out: UnsafeMutablePointer<UInt8>) -> Int {
        out[0] = UInt8(ascii: ",")
        out[1] = UInt8(ascii: " ")
        return 2
    }

    /// strftime("%Y-%m-%d, %H:%M:%S") of localtime, as hackrf_sweep prints it.
    private func cacheDateTime(_ seconds: Int) {
        var time = time_t(seconds)
        var parts = tm()
        localtime_r(&time, &parts)
        cachedDateTime.withUnsafeMutableBufferPointer { buffer in
            let out = buffer.baseAddress!
            FixedPointFormat.writePadded(Int(parts.tm_year) + 1900, width: 4, to: out)
            out[4] = UInt8(ascii: "-")
            FixedPointFormat.writePadded(Int(parts.tm_mon) + 1, width: 2, to: out + 5)
            out[7] = UInt8(ascii: "-")
            FixedPointFormat.writePadded(Int(parts.tm_mday), width: 2, to: out + 8)
            out[10] = UInt8(ascii: ",")
            out[11] = UInt8(ascii: " ")
            FixedPointFormat.writePadded(Int(parts.tm_hour), width: 2, to: out + 12)
            out[14] = UInt8(ascii: ":")
            FixedPointFormat.writePadded(Int(parts.tm_min), width: 2, to: out + 15)
            out[17] = UInt8(ascii: ":")
            FixedPointFormat.writePadded(Int(parts.tm_sec), width: 2, to: out + 18)
        }
        cachedSecond = seconds
    }
}

import Foundation

/// Writes hops in rtl_power's CSV layout (osmocom/rtl-sdr src/rtl_power.c,
/// release 0.6.0, `csv_dbm` and the main loop), one line per hop:
///
///     date, time, Hz low, Hz high, Hz step, samples, dB, dB, …
///
/// separated by ", "; date/time `%Y-%m-%d, %H:%M:%S` in local time (every hop
/// of one report shares it); Hz low/high as integers, the step `%.2f`,
/// samples as an integer, values `%.2f`. As in every real rtl_power file the
/// last value is printed twice, so a line carries one value more than the
/// hop has bins; existing tools (heatmap.py and friends) expect that.
/// Nothing is allocated per line.
public final class RTLPowerCSVWriter {
    private let sink: OutputSink
    /// strftime("%Y-%m-%d, %H:%M:%S") of localtime, as rtl_power prints it
    private var dateTime = CachedDateTime(zone: .local, separator: ", ")
    /// `%.2f` of the step, formatted again only when the step changes
    private var stepText: [UInt8] = []
    private var cachedStep = Double.nan

    public init(sink: OutputSink) {
        self.sink = sink
    }

    /// Writes one hop.
    /// - Parameters:
    ///   - seconds: report time (Unix seconds), printed in local time
    ///   - lowHz, highHz: hop edges as rtl_power prints them (centre ∓ half width)
    ///   - stepHz: bin width [Hz]
    ///   - samples: FFTs integrated (rtl_power's "samples")
    ///   - values: the hop's kept bins [dB], lowest frequency first (at least one)
    ///   - repeatLast: print the last value once more, as rtl_power does
    ///   - spelling: how −inf and NaN are printed (`-inf`/`nan`, or `-1.#J` as rtl_power built on Windows does)
    ///   - lineEnd: "\n" (rtl_power's), or as the row being written back had it
    public func writeHop(seconds: Int, lowHz: Int, highHz: Int, stepHz: Double, samples: Int,
                         values: UnsafeBufferPointer<Float>, repeatLast: Bool = true,
                         spelling: NonFiniteSpelling = .c, lineEnd: LineEnd = .lf) throws {
        guard let last = values.last else { return }
        // per value ", " + sign + up to 45 characters; header < 120
        let out = try sink.reserveLine(120 + (values.count + 1) * 48, values: values.count)
        var n = dateTime.write(seconds, to: out)
        n += FixedPointFormat.writeCommaSpace(to: out + n)
        n += Self.writeInteger(lowHz, to: out + n)
        n += FixedPointFormat.writeCommaSpace(to: out + n)
        n += Self.writeInteger(highHz, to: out + n)
        n += FixedPointFormat.writeCommaSpace(to: out + n)
        if stepHz != cachedStep {
            cachedStep = stepHz
            stepText = Array(String(format: "%.2f", stepHz).utf8)
        }
        n += FixedPointFormat.writeBytes(stepText, to: out + n)
        n += FixedPointFormat.writeCommaSpace(to: out + n)
        n += Self.writeInteger(samples, to: out + n)
        for value in values {
            n += FixedPointFormat.writeCommaSpace(to: out + n)
            n += FixedPointFormat.writeTwoDecimals(value, spelling: spelling, to: out + n)
        }
        if repeatLast {
            // rtl_power prints the last bin once more
            n += FixedPointFormat.writeCommaSpace(to: out + n)
            n += FixedPointFormat.writeTwoDecimals(last, spelling: spelling, to: out + n)
        }
        n += lineEnd.write(to: out + n)
        sink.commit(bytes: n)
    }

    public func flush() throws { try sink.flush() }

    /// `%i`
    static func writeInteger(_ value: Int, to out: UnsafeMutablePointer<UInt8>) -> Int {
        guard value < 0 else { return FixedPointFormat.writeDecimal(UInt64(value), to: out) }
        out[0] = UInt8(ascii: "-")
        return 1 + FixedPointFormat.writeDecimal(UInt64(value.magnitude), to: out + 1)
    }
}

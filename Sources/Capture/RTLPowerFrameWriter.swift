import Signals

/// Writes frames in rtl_power's CSV layout (for `tscope convert … x.csv
/// --format rtl_power`): each frame as hops of at most `maxBinsPerHop` bins,
/// one line each, every hop of a frame stamped with the frame's second, as
/// rtl_power stamps the hops of one sweep. Hops whose bins are all NaN (never
/// measured) are left out; rtl_power has no way to say "no value".
///
/// A frame read from rtl_power comes with its rows (`SweepRowLayout`): then
/// each hop is printed as the file had it (order, edges, step, samples,
/// repeated last value, `nan`/`-1.#J` spellings), so the output is the input.
public final class RTLPowerFrameWriter: SpectrumFrameWriter, SweepRowWriting {
    /// bins per line: rtl_power's own hops are at most a few thousand bins
    public static let maxBinsPerHop = 4096

    private let writer: RTLPowerCSVWriter

    public init(sink: OutputSink) {
        writer = RTLPowerCSVWriter(sink: sink)
    }

    public func write(_ frame: SpectrumFrame) throws {
        let seconds = Int(clamping: Int64(exactly: frame.timestamp.rounded(.down)) ?? 0)
        try frame.powerDB.withUnsafeBufferPointer { bins in
            var first = 0
            while first < bins.count {
                let count = min(Self.maxBinsPerHop, bins.count - first)
                let hop = UnsafeBufferPointer(rebasing: bins[first..<(first + count)])
                if hop.contains(where: { !$0.isNaN }) {
                    // rtl_power's "Hz low" is the first value's centre (RTLPowerCSVReader)
                    let lowHz = frame.binCenterHz(first)
                    try writer.writeHop(seconds: seconds, lowHz: Int(lowHz.rounded()),
                                        highHz: Int((lowHz + Double(count) * frame.binWidthHz).rounded()),
                                        stepHz: frame.binWidthHz, samples: 1, values: hop)
                }
                first += count
            }
        }
    }

    public func write(_ frame: SpectrumFrame, rows: SweepRowLayout?) throws {
        guard let rows, rows.format == .rtlPower, rows.fits(binCount: frame.powerDB.count) else {
            return try write(frame)
        }
        try rows.forEachRow(of: frame) { row, values in
            try writer.writeHop(seconds: PrintableTime.split(micros: row.timeMicros).seconds,
                                lowHz: Int(saturating: row.lowHz), highHz: Int(saturating: row.highHz),
                                stepHz: row.stepHz, samples: Int(row.samples), values: values,
                                repeatLast: row.repeatsLast, spelling: rows.spelling, lineEnd: row.lineEnd)
        }
    }

    public func finish() throws { try writer.flush() }
}

extension RTLPowerFrameWriter: SinkFrameWriter {}

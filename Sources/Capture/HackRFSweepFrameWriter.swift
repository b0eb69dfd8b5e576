import Foundation
import Signals

/// Writes frames in hackrf_sweep's text or `-B` layout through
/// `HackRFSweepWriter`: each frame is cut into 5 MHz slices of N/4 bins when
/// its width allows (as hackrf_sweep prints them), else written as one slice.
/// Slices with no data at all (NaN: gaps between sweep ranges) are left out.
///
/// A frame read from the same layout comes with its rows (`SweepRowLayout`):
/// then each line or record is written as the file had it (sweep order such
/// as 0, 10, 5, 15 MHz, edges, step, num_samples, each line's µs time), so
/// the output is the input.
public final class HackRFSweepFrameWriter: SpectrumFrameWriter, SweepRowWriting {
    /// hackrf_sweep's slice width: a quarter of its 20 MHz sample rate [Hz]
    static let sliceWidthHz = 5_000_000.0

    private let sink: OutputSink
    private let layout: HackRFSweepWriter.Layout
    private var writer: HackRFSweepWriter?
    private var sliceBins = 0
    /// prints rows with their own step and num_samples (frames with rows)
    private var rowWriter: HackRFSweepWriter?

    public init(sink: OutputSink, layout: HackRFSweepWriter.Layout) {
        self.sink = sink
        self.layout = layout
    }

    public func write(_ frame: SpectrumFrame) throws {
        let bins = frame.powerDB.count
        guard bins > 0 else { return }
        if writer == nil || sliceBins > bins || bins % sliceBins != 0 {
            let perSlice = Int(saturating: (Self.sliceWidthHz / frame.binWidthHz).rounded())
            sliceBins = perSlice >= 1 && bins % perSlice == 0 ? perSlice : bins
            // the header's hz_bin_width is fs/N and num_samples N, with N/4 bins per slice
            let fftSize = 4 * sliceBins
            let sampleRate = Self.hertz(frame.binWidthHz * Double(fftSize))
            writer = HackRFSweepWriter(sink: sink, layout: layout, fftSize: fftSize, sampleRateHz: sampleRate)
        }
        guard let writer else { return }
        let (seconds, microseconds) = PrintableTime.microseconds(frame.timestamp)
        try frame.powerDB.withUnsafeBufferPointer { all in
            var first = 0
            while first < bins {
                let slice = UnsafeBufferPointer(rebasing: all[first..<(first + sliceBins)])
                if slice.contains(where: { !$0.isNaN }) {
                    let low = frame.startHz + Double(first) * frame.binWidthHz
                    let high = low + Double(sliceBins) * frame.binWidthHz
                    try writer.writeSlice(lowHz: Self.hertz(low), highHz: Self.hertz(high),
                                          seconds: seconds, microseconds: microseconds, values: slice)
                }
                first += sliceBins
            }
        }
    }

    public func write(_ frame: SpectrumFrame, rows: SweepRowLayout?) throws {
        let own: CaptureFormat = layout == .text ? .hackrfSweep : .hackrfSweepBinary
        guard let rows, rows.format == own, rows.fits(binCount: frame.powerDB.count) else { return try write(frame) }
        let rowWriter = self.rowWriter ?? HackRFSweepWriter(sink: sink, layout: layout, fftSize: 4)
        self.rowWriter = rowWriter
        try rows.forEachRow(of: frame) { row, values in
            let (seconds, microseconds) = PrintableTime.split(micros: row.timeMicros)
            try rowWriter.writeRow(lowHz: Self.hertz(row.lowHz), highHz: Self.hertz(row.highHz), stepHz: row.stepHz,
                                   samples: row.samples, seconds: seconds, microseconds: microseconds, values: values,
                                   spelling: rows.spelling, lineEnd: row.lineEnd, timeDecimals: row.timeDecimals)
        }
    }

    public func finish() throws { try sink.flush() }

    /// A frequency as hackrf_sweep's integer hertz; 0 for what no UInt64 holds.
    static func hertz(_ value: Double) -> UInt64 {
        value.isFinite && value >= 0 && value < 1.8e19 ? UInt64(value.rounded()) : 0
    }
}

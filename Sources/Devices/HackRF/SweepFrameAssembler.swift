import DSP
import Signals

/// Builds full-span spectra for one range of a sweep plan from per-block
/// quarter-spectra, placed as hackrf_sweep prints them: the lower quarter at
/// [f, f + 5 MHz], the upper at [f + 10 MHz, f + 15 MHz]. Positions are
/// computed in exact integer hertz: chunk = (f − start) / 5 MHz.
///
/// A frame is emitted when a block at the range's start arrives after some
/// data was placed (hackrf_sweep counts a sweep when the block frequency
/// returns to the start); blocks before the first start are skipped, as
/// hackrf_sweep does. Bins no block filled in that sweep are NaN.
/// Storage is allocated in `init`; two frame buffers alternate so the
/// consumer may keep the last frame without forcing a copy.
public final class SweepFrameAssembler {
    /// lower edge of bin 0 [Hz]
    public let startHz: UInt64
    /// upper edge of the last bin [Hz]
    public let stopHz: UInt64
    /// bins per 5 MHz quarter (N/4)
    public let binsPerQuarter: Int
    /// [Hz]
    public let binWidthHz: Double
    /// a bin's noise bandwidth (`SpectrumFrame.noiseBandwidthHz`) [Hz]
    public let noiseBandwidthHz: Double
    /// hackrf_sweep's Hann window over the plan's FFT size (`SpectrumFrame.windowing`)
    public let windowing: FFTWindowing
    /// bins in a frame
    public var binCount: Int { working.count }

    /// blocks outside this range or not on the 5 MHz grid
    public private(set) var misplacedBlocks = 0

    private var working: [Float]
    private var spare: [Float]
    private var started = false
    private var placedSinceStart = 0

    public init(plan: HackRFSweepPlan, rangeIndex: Int = 0) {
        let range = plan.ranges[min(max(rangeIndex, 0), plan.ranges.count - 1)]
        startHz = UInt64(range.startMHz) * 1_000_000
        stopHz = UInt64(range.stopMHz) * 1_000_000
        binsPerQuarter = plan.binsPerQuarter
        binWidthHz = plan.binWidthHz
        // hackrf_sweep's Hann window over the plan's FFT size
        noiseBandwidthHz = plan.binWidthHz * SpectralWindow.hannMeanSquare(length: plan.fftSize)
        windowing = FFTWindowing(.hann, length: plan.fftSize)
        let chunks = Int((stopHz - startHz) / HackRFSweepPlan.quarterHz)
        working = [Float](repeating: .nan, count: chunks * binsPerQuarter)
        spare = working
    }

    /// Places one block's quarters. Returns the finished frame when this
    /// block starts a new sweep, else nil.
    public func add(frequencyHz: UInt64, lowerQuarter: UnsafeBufferPointer<Float>,
                    upperQuarter: UnsafeBufferPointer<Float>, timestamp: Double) -> SpectrumFrame? {
        var finished: SpectrumFrame?
        if frequencyHz == startHz {
            if started && placedSinceStart > 0 { finished = emit(timestamp: timestamp) }
            started = true
        }
        guard started else { return finished }
        let quarter = HackRFSweepPlan.quarterHz
        guard frequencyHz >= startHz, (frequencyHz - startHz) % quarter == 0 else {
            misplacedBlocks += 1
            return finished
        }
        let lowerChunk = Int((frequencyHz - startHz) / quarter)
        // the upper quarter starts 10 MHz (two chunks) higher
        let placedLower = place(lowerQuarter, chunk: lowerChunk)
        let placedUpper = place(upperQuarter, chunk: lowerChunk + 2)
        if placedLower || placedUpper { placedSinceStart += 1 } else { misplacedBlocks += 1 }
        return finished
    }

    private func place(_ quarter: UnsafeBufferPointer<Float>, chunk: Int) -> Bool {
        let first = chunk * binsPerQuarter
        guard quarter.count == binsPerQuarter, first + binsPerQuarter <= working.count else { return false }
        working.withUnsafeMutableBufferPointer { bins in
            for i in 0..<binsPerQuarter { bins[first + i] = quarter[i] }
        }
        return true
    }

    private func emit(timestamp: Double) -> SpectrumFrame {
        let frame = SpectrumFrame(startHz: Double(startHz), binWidthHz: binWidthHz, timestamp: timestamp,
                                  powerDB: working, noiseBandwidthHz: noiseBandwidthHz, windowing: windowing)
        swap(&working, &spare)
        working.withUnsafeMutableBufferPointer { bins in
            for i in 0..<bins.count { bins[i] = .nan }
        }
        placedSinceStart = 0
        return frame
    }
}

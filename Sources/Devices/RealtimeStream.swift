import DSP
import Foundation
import Signals
import Synchronization
import ThreadKit

/// The real-time path of a streaming radio (HackRF receive mode, an RTL-SDR
/// at one tuning): USB thread → bounded ring of transfers → DSP thread
/// (`RealtimeSpectrum`: overlapped FFTs, detectors per frame) → `onFrame`.
///
/// The USB thread only copies each transfer into the next slot and stamps
/// it with the index of its first sample; when the DSP thread falls behind
/// the oldest transfer is overwritten. The DSP thread sees the jump in
/// sample index, counts every missing sample in `droppedSamples` and
/// restarts its windows after the gap, so no FFT straddles it.
final class RealtimeStream: Sendable {
    private struct Chunk {
        var bytes: [UInt8]
        var count = 0
        /// index of the chunk's first complex sample since the stream began
        var firstSample = 0
    }

    private let ring: DropOldestRing<Chunk>
    private let chunkBytes: Int
    /// bytes of one complex sample in the stream (2 for int8/uint8, 4 for CS16, 8 for CF32)
    private let bytesPerSample: Int
    /// complex samples pushed since `start` (USB thread)
    private let pushed = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)
    private let frames = Atomic<Int>(0)
    private let worker = Guarded<(thread: WorkerThread?, analysis: RealtimeAnalysis?)>((nil, nil))

    /// - Parameters:
    ///   - chunkBytes: the largest transfer [bytes]
    ///   - capacity: transfers the ring holds (HackRF: 96 × 262144 bytes ≈ 1.26 s at 20 MS/s, time for the DSP
    ///     thread to be scheduled again on a loaded machine)
    init(chunkBytes: Int, capacity: Int, bytesPerSample: Int = 2) {
        self.chunkBytes = chunkBytes
        self.bytesPerSample = bytesPerSample
        // slots grow to a transfer on first use, so a source that never streams holds no buffers
        ring = DropOldestRing(capacity: capacity, onClose: .discard) { Chunk(bytes: []) }
    }

    /// samples lost before transformation, over every run
    var droppedSamples: Int { dropped.load(ordering: .relaxed) }
    var frameCount: Int { frames.load(ordering: .relaxed) }
    /// the running analysis (FFT, overlap, rate), nil when stopped
    var analysis: RealtimeAnalysis? { worker.withLock { $0.analysis } }
    var isRunning: Bool { worker.withLock { $0.thread != nil } }

    /// Copies one transfer in (USB thread; never waits on the DSP thread).
    /// A short transfer (an emulator handing out what is due, a timeout) is
    /// packed onto the newest queued one while it has room, so the ring's
    /// slots stay full-sized and its capacity means time, not calls.
    func push(_ data: UnsafeRawBufferPointer) {
        let stride = bytesPerSample
        let samples = data.count / stride
        guard samples > 0, let source = data.baseAddress else { return }
        let first = pushed.add(samples, ordering: .relaxed).oldValue
        let bytes = stride * samples
        let size = chunkBytes
        let packed = ring.extendNewest(if: { $0.count + bytes <= $0.bytes.count && $0.firstSample + $0.count / stride == first }) { slot in
            slot.bytes.withUnsafeMutableBytes { $0.baseAddress!.advanced(by: slot.count).copyMemory(from: source, byteCount: bytes) }
            slot.count += bytes
        }
        if packed { return }
        ring.push { slot in
            if slot.bytes.count < bytes { slot.bytes = [UInt8](repeating: 0, count: max(size, bytes)) }
            slot.bytes.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: source, byteCount: bytes) }
            slot.count = bytes
            slot.firstSample = first
        }
    }

    /// Starts the DSP thread for `plan`; frames go to `onFrame` on it (with
    /// every detector's levels beside `detector`'s when `keepingEveryDetector`).
    func start(plan: RealtimeBandPlan, detector: SpectrumDetector, keepingEveryDetector: Bool = false,
               format: RealtimeSpectrum.SampleFormat, onFrame: @escaping @Sendable (SpectrumFrame) -> Void) -> Bool {
        stop()
        ring.reopen()
        pushed.store(0, ordering: .relaxed)
        let chunkBytes = self.chunkBytes
        let stride = bytesPerSample
        precondition(format.bytesPerSample == stride, "the stream's sample size is the spectrum's")
        let analysis = RealtimeSpectrum.analysis(fftSize: plan.fftSize, sampleRateHz: plan.sampleRateHz)
        let noiseBandwidthHz = plan.binWidthHz * SpectralWindow.hannMeanSquare(length: plan.fftSize)
        let windowing = FFTWindowing(.hann, length: plan.fftSize)
        guard let thread = WorkerThread({ [self] in
            // the spectrum belongs to the DSP thread alone: made there, never shared
            let spectrum = RealtimeSpectrum(fftSize: plan.fftSize, sampleRateHz: plan.sampleRateHz, detector: detector,
                                            format: format, keptBins: plan.keptBins,
                                            keepEveryDetector: keepingEveryDetector)
            var working = [UInt8](repeating: 0, count: chunkBytes)
            var expected = 0
            while true {
                var count = 0, first = 0
                let taken = ring.pop { slot in
                    swap(&slot.bytes, &working)
                    count = slot.count
                    first = slot.firstSample
                }
                guard taken == .item else { return }
                if first > expected {
                    dropped.add(first - expected, ordering: .relaxed)
                    spectrum.restartWindows()
                }
                expected = first + count / stride
                working.withUnsafeBytes { raw in
                    spectrum.consume(UnsafeRawBufferPointer(rebasing: raw[0..<count])) { bins, _ in
                        frames.add(1, ordering: .relaxed)
                        onFrame(SpectrumFrame(startHz: plan.frameStartHz, binWidthHz: plan.binWidthHz,
                                              timestamp: unixTimeNow(), powerDB: Array(bins),
                                              noiseBandwidthHz: noiseBandwidthHz, windowing: windowing,
                                              everyDetector: Self.everyDetector(of: spectrum)))
                    }
                }
            }
        }) else { return false }
        worker.withLock { $0 = (thread, analysis) }
        return true
    }

    /// the frame just made by each detector, where the spectrum keeps them all
    static func everyDetector(of spectrum: RealtimeSpectrum) -> DetectorLevels? {
        guard let peak = spectrum.levels(by: .peak), let average = spectrum.levels(by: .average),
              let sample = spectrum.levels(by: .sample), let cisprAverage = spectrum.levels(by: .cisprAverage)
        else { return nil }
        return DetectorLevels(peak: Array(peak), average: Array(average), sample: Array(sample),
                              cisprAverage: Array(cisprAverage))
    }

    /// Closes the ring (what is queued belongs to the old tuning) and joins the DSP thread.
    func stop() {
        ring.close()
        let thread = worker.withLock { state -> WorkerThread? in
            defer { state = (nil, nil) }
            return state.thread
        }
        thread?.join()
    }
}

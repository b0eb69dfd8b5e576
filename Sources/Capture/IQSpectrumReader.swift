import DSP
import Foundation
import Signals

/// Turns raw I/Q (`.cu8`, `.cs8`, `.cs16`, `.cf32`, or SigMF data) into
/// spectrum frames through FFTW: per frame `averaging` consecutive blocks of
/// `fftSize` samples, each Hann-windowed and transformed, their power
/// averaged (Welch, no overlap), shifted so bins ascend from centre − rate/2,
/// in dB relative to full scale. Bin k of N is centred on
/// centre − rate/2 + k·rate/N, so bin N/2 is the DC bin at the tuned centre:
/// numpy's `fftshift(fftfreq(N, 1/rate))`, scipy and gqrx label bins so
/// (Firmware-Notes/capture-format.md, "Raw I/Q: bin frequencies") (a full-scale tone reads 0 dB). A burst as
/// short as one block lifts its frame by ≥ 10·log10(1/averaging) dB over the
/// floor, so it shows in the waterfall. Frame k is stamped with the time of
/// its last sample. Plans and buffers are made in `init`.
public final class IQSpectrumReader: SpectrumFrameReader {
    /// A stretch of the recording tuned to one frequency (SigMF captures).
    public struct Segment: Sendable, Equatable {
        /// first sample of the segment
        public var sampleStart: Int
        /// centre frequency [Hz]
        public var centerHz: Double
        public init(sampleStart: Int, centerHz: Double) {
            self.sampleStart = sampleStart
            self.centerHz = centerHz
        }
    }

    public private(set) var metadata: CaptureMetadata
    public var skipped: Int { 0 }
    public var progress: (done: Int, total: Int?) { (records.offset, records.input.totalBytes) }

    public let format: IQSampleFormat
    /// [samples/s]
    public let sampleRateHz: Double
    public let fftSize: Int
    public let averaging: Int
    private let segments: [Segment]
    private let startTime: Double
    private let records: RecordReader
    private let fft: PowerSpectrumFFT
    private let window: UnsafeMutablePointer<Float>
    private let samples: UnsafeMutablePointer<Float>
    private let powerSum: UnsafeMutablePointer<Float>
    /// 1 / (Σ window)²: makes a full-scale tone 0 dB
    private let powerScale: Float
    private var samplesRead = 0

    public init(input: ByteInput, format: IQSampleFormat, sampleRateHz: Double, segments: [Segment],
                options: IQOptions, metadataFormat: String) throws {
        guard sampleRateHz.isFinite, sampleRateHz > 0 else {
            throw CaptureError(file: input.name, "raw I/Q needs a positive sample rate (--rate)")
        }
        guard options.fftSize >= 8, options.fftSize <= 1 << 20, options.averaging >= 1, options.averaging <= 4096 else {
            throw CaptureError(file: input.name, "FFT size must be 8…1048576 and averaging 1…4096")
        }
        self.format = format
        self.sampleRateHz = sampleRateHz
        self.fftSize = options.fftSize
        self.averaging = options.averaging
        self.segments = segments.isEmpty ? [Segment(sampleStart: 0, centerHz: options.centerHz ?? 0)] : segments
        self.startTime = options.startTime ?? 0
        records = RecordReader(input: input, initialCapacity: max(1 << 16, options.fftSize * format.bytesPerSample))
        let n = options.fftSize
        fft = PowerSpectrumFFT(size: n)
        window = .allocate(capacity: n)
        samples = .allocate(capacity: 2 * n)
        powerSum = .allocate(capacity: n)
        var sum: Double = 0
        for i in 0..<n {
            let w = SpectralWindow.periodicHann(i, length: n)
            window[i] = Float(w)
            sum += w
        }
        powerScale = Float(1 / (sum * sum))
        metadata = CaptureMetadata(format: metadataFormat)
        metadata.binWidthHz = sampleRateHz / Double(n)
        let firstStart = Self.startHz(centerHz: self.segments[0].centerHz, binWidthHz: sampleRateHz / Double(n), bins: n)
        metadata.span = FrequencyRange(lowerHz: firstStart, upperHz: firstStart + sampleRateHz)
    }

    public convenience init(path: String, format: IQSampleFormat, options: IQOptions) throws {
        let input = try ByteInput(path: path)
        guard let rate = options.sampleRateHz else {
            throw CaptureError(file: path, "raw \(format.rawValue) I/Q carries no sample rate: give --rate (and --center)")
        }
        try self.init(input: input, format: format, sampleRateHz: rate, segments: [], options: options,
                      metadataFormat: format.rawValue)
    }

    deinit {
        window.deallocate()
        samples.deallocate()
        powerSum.deallocate()
    }

    public func next(into frame: inout SpectrumFrame) throws -> Bool {
        let n = fftSize
        let segment = currentSegment()
        // a frame never straddles a retune
        var blocksWanted = averaging
        if let boundary = nextBoundary() {
            blocksWanted = max(1, min(averaging, (boundary - samplesRead) / n))
        }
        var blocks = 0
        while blocks < blocksWanted {
            let bytes = try records.take(n * format.bytesPerSample)
            guard bytes.count == n * format.bytesPerSample else { break }  // tail shorter than one FFT
            format.convert(bytes, count: n, into: samples)
            transform(accumulate: blocks > 0)
            blocks += 1
            samplesRead += n
        }
        guard blocks > 0 else {
            if samplesRead == 0 { throw tooShort(bytes: records.offset) }
            return false
        }
        if frame.powerDB.count != n {
            frame.powerDB.removeAll(keepingCapacity: true)
            frame.powerDB.append(contentsOf: repeatElement(0, count: n))
        }
        let scale = powerScale / Float(blocks)
        frame.powerDB.withUnsafeMutableBufferPointer { out in
            // FFT order → ascending (numpy's fftshift): negative frequencies, FFT bins
            // n − ⌊n/2⌋…n−1, first; DC lands on shifted bin ⌊n/2⌋ for odd n too
            let negative = n - n / 2
            for i in 0..<n {
                let source = (i + negative) % n
                out[i] = 10 * log10f(powerSum[source] * scale)
            }
        }
        frame.binWidthHz = sampleRateHz / Double(n)
        frame.startHz = Self.startHz(centerHz: segment.centerHz, binWidthHz: frame.binWidthHz, bins: n)
        frame.timestamp = startTime + Double(samplesRead) / sampleRateHz
        return true
    }

    /// A recording that ends before its first FFT: no data is an error, not "0 frames".
    private func tooShort(bytes: Int) -> CaptureError {
        let name = records.input.name
        let sampleBytes = format.bytesPerSample
        let fft = "one FFT of \(fftSize) samples (\(fftSize * sampleBytes) bytes of \(format.rawValue))"
        if bytes == 0 { return CaptureError(file: name, "empty: no I/Q samples, expected at least \(fft)") }
        let whole = bytes / sampleBytes
        // 8: the smallest FFT size
        let hint = whole >= 8 ? ": give a smaller --fft-size" : ""
        return CaptureError(file: name, "\(bytes) bytes: \(whole) whole \(format.rawValue) sample\(whole == 1 ? "" : "s"), "
                                + "fewer than \(fft)\(hint)")
    }

    /// Lower edge of shifted bin 0 [Hz]: half a bin below centre − ⌊N/2⌋·binWidth,
    /// so that bin k's centre (`SpectrumFrame.binCenterHz`) is centre + (k − ⌊N/2⌋)·binWidth.
    static func startHz(centerHz: Double, binWidthHz: Double, bins: Int) -> Double {
        centerHz - (Double(bins / 2) + 0.5) * binWidthHz
    }

    private func transform(accumulate: Bool) {
        let n = fftSize
        let inputFloats = fft.input
        for i in 0..<n {
            inputFloats[2 * i] = samples[2 * i] * window[i]
            inputFloats[2 * i + 1] = samples[2 * i + 1] * window[i]
        }
        fft.transform()
        // |X|² unscaled here: powerScale (1 / (Σ window)²) is applied once per frame
        fft.combinePower(scale: 1, accumulate ? .sum : .replace, into: powerSum)
    }

    private func currentSegment() -> Segment {
        segments.last { $0.sampleStart <= samplesRead } ?? segments[0]
    }

    private func nextBoundary() -> Int? {
        segments.first { $0.sampleStart > samplesRead }?.sampleStart
    }
}

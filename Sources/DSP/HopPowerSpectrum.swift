import Foundation
import Signals

/// Power spectrum of one RTL-SDR hop, as rtl_power integrates it: the hop's
/// u8 I/Q (offset binary, midpoint 127.5) is cut into consecutive segments of
/// `fftSize × downsample` samples; each segment is boxcar-summed by
/// `downsample`, windowed, transformed (FFTW, single precision) and its
/// |X|² added per bin into a caller-owned accumulator.
///
/// Scale: samples are divided by 128 like hackrf_sweep's int8 input, and the
/// accumulated power is |X|² / (N² · downsample²) per FFT, so a full-scale
/// tone reads about 0 dB on every device (rtl_power's own numbers are
/// uncalibrated; see README). Plans and buffers are made in `init`;
/// `accumulate` allocates nothing.
public final class HopPowerSpectrum {
    /// FFT size N [bins], a power of two as rtl_power uses
    public let fftSize: Int
    /// samples summed into one (rtl_power's boxcar downsampling for narrow spans)
    public let downsample: Int
    public let window: SpectralWindow

    private let fft: PowerSpectrumFFT
    /// window / 128 / downsample, each weight twice (I and Q)
    private let interleavedWindow: UnsafeMutablePointer<Float>
    /// 1 / N², applied in the power pass
    private let powerScale: Float

    /// how each transform's bin powers enter the caller's accumulator (which
    /// starts at zero): summed (rtl_power's mean, `.sum`), the largest kept
    /// (peak detector, `.maximum`) or the envelopes √power summed (the CISPR
    /// average, `.sumOfEnvelopes`: the caller divides by the transforms and
    /// squares). N = 1 ("giant bins": each bin a whole read's samples) sums
    /// power, or envelopes for `.sumOfEnvelopes`, never a maximum
    public let combination: PowerSpectrumFFT.Combination

    public init(fftSize: Int, window: SpectralWindow = .rectangle, downsample: Int = 1,
                combination: PowerSpectrumFFT.Combination = .sum) {
        self.combination = combination
        precondition(fftSize >= 1 && downsample >= 1, "FFT size and downsampling must be positive")
        self.fftSize = fftSize
        self.downsample = downsample
        self.window = window
        fft = PowerSpectrumFFT(size: fftSize)
        interleavedWindow = .allocate(capacity: 2 * fftSize)
        for i in 0..<fftSize {
            let w = Float(window.weight(i, length: fftSize) / 128 / Double(downsample))
            interleavedWindow[2 * i] = w
            interleavedWindow[2 * i + 1] = w
        }
        powerScale = 1 / (Float(fftSize) * Float(fftSize))
    }

    deinit {
        interleavedWindow.deallocate()
    }

    /// u8 bytes one FFT consumes: 2 · N · downsample
    public var bytesPerTransform: Int { 2 * fftSize * downsample }

    /// A bin's noise bandwidth over its width (`SpectrumFrame.noiseBandwidthHz`):
    /// the window's mean square, since power is |X|²/N²
    public var noiseBandwidthInBins: Double { window.meanSquare(length: fftSize) }

    /// Adds the power of every whole segment in `iq` to `accumulator`
    /// (`fftSize` values, FFT order: bin 0 = DC). Returns the number of FFTs.
    @discardableResult
    public func accumulate(_ iq: UnsafeRawBufferPointer, into accumulator: UnsafeMutablePointer<Float>) -> Int {
        let n = fftSize
        let transforms = iq.count / bytesPerTransform
        guard transforms > 0, let base = iq.baseAddress else { return 0 }
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        if n == 1 && downsample == 1 {
            return combination == .sumOfEnvelopes ? accumulateEnvelopes(bytes, samples: transforms, into: accumulator)
                : accumulateMeanPower(bytes, samples: transforms, into: accumulator)
        }
        let inputFloats = fft.input
        for t in 0..<transforms {
            let segment = bytes + t * bytesPerTransform
            if downsample == 1 {
                for k in 0..<(2 * n) {
                    inputFloats[k] = (Float(segment[k]) - 127.5) * interleavedWindow[k]
                }
            } else {
                boxcar(segment, into: inputFloats)
            }
            fft.transform()
            fft.combinePower(scale: powerScale, combination, into: accumulator)
        }
        return transforms
    }

    /// N = 1 (rtl_power's "giant bins"): the FFT is the identity, so sum |x|²
    /// directly instead of calling FFTW once per sample.
    private func accumulateMeanPower(_ bytes: UnsafePointer<UInt8>, samples: Int,
                                     into accumulator: UnsafeMutablePointer<Float>) -> Int {
        let w = interleavedWindow[0]
        var sum: Float = 0
        for k in 0..<(2 * samples) {
            let x = (Float(bytes[k]) - 127.5) * w
            sum += x * x
        }
        accumulator[0] += sum
        return samples
    }

    /// N = 1 for the CISPR average: each sample's envelope |x| summed.
    private func accumulateEnvelopes(_ bytes: UnsafePointer<UInt8>, samples: Int,
                                     into accumulator: UnsafeMutablePointer<Float>) -> Int {
        let w = interleavedWindow[0]
        var sum: Float = 0
        for k in 0..<samples {
            let i = (Float(bytes[2 * k]) - 127.5) * w, q = (Float(bytes[2 * k + 1]) - 127.5) * w
            sum += (i * i + q * q).squareRoot()
        }
        accumulator[0] += sum
        return samples
    }

    /// Sums `downsample` consecutive samples per output sample, then windows.
    private func boxcar(_ segment: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<Float>) {
        let ds = downsample
        let offset = 127.5 * Float(ds)
        for j in 0..<fftSize {
            var i: Int32 = 0, q: Int32 = 0
            let start = segment + 2 * j * ds
            for s in 0..<ds {
                i += Int32(start[2 * s])
                q += Int32(start[2 * s + 1])
            }
            out[2 * j] = (Float(i) - offset) * interleavedWindow[2 * j]
            out[2 * j + 1] = (Float(q) - offset) * interleavedWindow[2 * j + 1]
        }
    }

    /// Plain reference for `accumulate` on one segment: a direct DFT in
    /// Double of the boxcar-summed, windowed samples; power per bin scaled
    /// as `accumulate` scales it.
    package static func referencePower(_ iq: [UInt8], fftSize n: Int, window: SpectralWindow,
                                       downsample ds: Int) -> [Double] {
        var samples: [(Double, Double)] = []
        for j in 0..<n {
            var i = 0.0, q = 0.0
            for s in 0..<ds {
                i += Double(iq[2 * (j * ds + s)]) - 127.5
                q += Double(iq[2 * (j * ds + s) + 1]) - 127.5
            }
            let w = window.weight(j, length: n) / 128 / Double(ds)
            samples.append((i * w, q * w))
        }
        return (0..<n).map { k in
            var re = 0.0, im = 0.0
            for (j, x) in samples.enumerated() {
                let angle = -2 * Double.pi * Double(k * j) / Double(n)
                re += x.0 * cos(angle) - x.1 * sin(angle)
                im += x.0 * sin(angle) + x.1 * cos(angle)
            }
            return (re * re + im * im) / Double(n * n)
        }
    }
}

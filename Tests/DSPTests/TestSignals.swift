import Signals
import Foundation

/// Synthesises interleaved int8 I/Q blocks like a HackRF transfer.
enum IQSynth {
    /// bytes in one hackrf_sweep block
    static let blockBytes = 16384

    static func int8(_ value: Double) -> Int8 {
        Int8(max(-127, min(127, value.rounded())))
    }

    /// A complex tone exp(j·2π·cycles·n/N) of amplitude `amplitude` [int8
    /// counts] plus complex Gaussian noise with E|noise|² = `noiseSigma`²
    /// [counts²], over `samples` complex samples.
    static func block(
        samples: Int = blockBytes / 2,
        amplitude: Double = 0,
        cyclesPerSample: Double = 0,
        noiseSigma: Double = 0,
        seed: UInt64 = 1
    ) -> [Int8] {
        var rng = SeededRandom(seed: seed)
        let componentSigma = noiseSigma / 2.0.squareRoot()
        var iq = [Int8](repeating: 0, count: 2 * samples)
        for n in 0..<samples {
            let phase = 2 * Double.pi * cyclesPerSample * Double(n)
            let noiseI = noiseSigma > 0 ? rng.gaussian() * componentSigma : 0
            let noiseQ = noiseSigma > 0 ? rng.gaussian() * componentSigma : 0
            iq[2 * n] = int8(amplitude * cos(phase) + noiseI)
            iq[2 * n + 1] = int8(amplitude * sin(phase) + noiseQ)
        }
        return iq
    }
}

/// Plain scalar reference of hackrf_sweep's spectrum: direct DFT in Double of
/// the last N·segments samples, Hann window 0.5(1 − cos(2πi/(N−1))), int8/128,
/// |X/N|² averaged over segments, 10·log10.
enum ReferenceSpectrum {
    static func decibels(iq: [Int8], fftSize n: Int, segments: Int = 1) -> [Double] {
        let pairs = iq.count / 2
        var window = [Double](repeating: 0, count: n)
        for i in 0..<n { window[i] = 0.5 * (1 - cos(2 * Double.pi * Double(i) / Double(n - 1))) }
        // twiddles exp(−j2πm/N)
        var cosTable = [Double](repeating: 0, count: n)
        var sinTable = [Double](repeating: 0, count: n)
        for m in 0..<n {
            cosTable[m] = cos(2 * Double.pi * Double(m) / Double(n))
            sinTable[m] = -sin(2 * Double.pi * Double(m) / Double(n))
        }
        var power = [Double](repeating: 0, count: n)
        for segment in 0..<segments {
            let first = pairs - n * (segments - segment)
            var xr = [Double](repeating: 0, count: n)
            var xi = [Double](repeating: 0, count: n)
            for i in 0..<n {
                xr[i] = Double(iq[2 * (first + i)]) / 128 * window[i]
                xi[i] = Double(iq[2 * (first + i) + 1]) / 128 * window[i]
            }
            for k in 0..<n {
                var re = 0.0
                var im = 0.0
                for i in 0..<n {
                    let m = (k * i) % n
                    re += xr[i] * cosTable[m] - xi[i] * sinTable[m]
                    im += xr[i] * sinTable[m] + xi[i] * cosTable[m]
                }
                re /= Double(n)
                im /= Double(n)
                power[k] += re * re + im * im
            }
        }
        return power.map { 10 * log10($0 / Double(segments)) }
    }
}

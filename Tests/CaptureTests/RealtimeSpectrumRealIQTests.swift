import DSP
import Foundation
import Testing

/// The real-time path on a real HackRF capture (the toy-car remote's burst,
/// cs8 at 2 MS/s; Fixtures/README.md): by Parseval, each frame's bins summed
/// equal the windowed samples' mean power, computed here straight from the
/// file's bytes for the FFTs the frame holds (window j starts at j·hop).
@Suite struct RealtimeSpectrumRealIQTests {
    @Test func everyFrameOfARealCaptureHoldsThePowerOfItsWindowedSamples() throws {
        let bytes = [Int8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("iq-rc-car-2g4/light.complex16s")))
            .map { Int8(bitPattern: $0) })
        let n = 256, hop = 128, perFrame = 10
        let spectrum = RealtimeSpectrum(fftSize: n, sampleRateHz: 2e6, detector: .average, format: .int8,
                                        framesPerSecond: 2e6 / Double(hop * perFrame), removeDC: false)
        #expect(spectrum.hop == hop && spectrum.fftsPerFrame == perFrame)
        var frames: [Double] = []
        bytes.withUnsafeBytes { raw in
            spectrum.consume(raw) { levels, _ in frames.append(levels.reduce(0.0) { $0 + pow(10, Double($1) / 10) }) }
        }
        let samples = bytes.count / 2
        #expect(frames.count == ((samples - n) / hop + 1) / perFrame)
        let window = (0..<n).map { 0.5 * (1 - cos(2 * Double.pi * Double($0) / Double(n - 1))) }
        var loud = 0
        for (f, measured) in frames.enumerated() {
            var expected = 0.0
            for j in (f * perFrame)..<((f + 1) * perFrame) {
                for k in 0..<n {
                    let i = Double(bytes[2 * (j * hop + k)]) / 128, q = Double(bytes[2 * (j * hop + k) + 1]) / 128
                    expected += (i * i + q * q) * window[k] * window[k] / Double(n)
                }
            }
            expected /= Double(perFrame)
            if expected > 1e-6 {
                loud += 1
                #expect(abs(10 * log10(measured / expected)) < 0.01, "frame \(f): \(measured) vs \(expected)")
            } else {
                // the zeroed gaps of the cut burst: nothing
                #expect(measured < 1e-5, "frame \(f): \(measured)")
            }
        }
        // the burst spans a good part of the capture
        #expect(loud >= 10, "\(loud) frames with signal")
    }
}

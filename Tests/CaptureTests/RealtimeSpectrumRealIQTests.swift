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

    /// SoapySDR's CS16 (full scale 32768) and CF32 (full scale 1) carry the same capture: the same frames as
    /// the cs8 bytes they were made from (SoapyHackRF's CS8→CS16 is a shift by 8 bits).
    @Test func cs16AndCF32FramesEqualTheCS8Frames() throws {
        let bytes = [Int8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("iq-rc-car-2g4/light.complex16s")))
            .map { Int8(bitPattern: $0) })
        func frames(_ format: RealtimeSpectrum.SampleFormat, _ raw: UnsafeRawBufferPointer) -> [[Float]] {
            let spectrum = RealtimeSpectrum(fftSize: 512, sampleRateHz: 2e6, detector: .peak, format: format,
                                            framesPerSecond: 2000)
            var result: [[Float]] = []
            spectrum.consume(raw) { levels, _ in result.append(Array(levels)) }
            return result
        }
        let cs8 = bytes.withUnsafeBytes { frames(.int8, $0) }
        let cs16 = bytes.map { Int16($0) << 8 }.withUnsafeBytes { frames(.int16, $0) }
        let cf32 = bytes.map { Float($0) / 128 }.withUnsafeBytes { frames(.float32, $0) }
        #expect(cs8.count > 10 && cs16.count == cs8.count && cf32.count == cs8.count)
        for (index, frame) in cs8.enumerated() {
            let worst16 = zip(frame, cs16[index]).map { abs($0 - $1) }.max() ?? .infinity
            let worst32 = zip(frame, cf32[index]).map { abs($0 - $1) }.max() ?? .infinity
            #expect(worst16 < 1e-3 && worst32 < 1e-3, "frame \(index): \(worst16) \(worst32) dB")
        }
    }
}

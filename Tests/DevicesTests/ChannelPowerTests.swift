import Analyzers
import DSP
import Foundation
import Signals
import Testing
import ThreadKit
import USBDriver
@testable import Devices

/// Channel power as a bench analyzer measures it: Σ Pᵢ × step / noise
/// bandwidth. For each kind of device, a scene of known band power (tones
/// and white noise) must read that power within 0.5 dB; without the
/// correction the swept analyzers read ≥ 2 dB high (each tone and each bit
/// of noise lands in about RBW/step points).
@Suite struct ChannelPowerTests {
    /// Two tones and white noise; its power in `band` [dBm].
    struct Scene {
        var tones: [(hz: Double, dBm: Double)]
        var densityDBmPerHz: Double

        func analyzerScene(seed: UInt64) -> AnalyzerScene {
            var scene = AnalyzerScene(seed: seed, carriers: tones.map { (frequencyHz: $0.hz, levelDBm: $0.dBm, widthHz: 0) })
            scene.noiseDensityDBmPerHz = densityDBmPerHz
            return scene
        }

        func power(in band: FrequencyRange) -> Double {
            var linear = Units.power(decibels: densityDBmPerHz) * band.spanHz
            for tone in tones where band.lowerHz < tone.hz && tone.hz < band.upperHz {
                linear += Units.power(decibels: tone.dBm)
            }
            return Units.decibels(power: linear)
        }
    }

    static let scene = Scene(tones: [(433.3e6, -40), (434.6e6, -45)], densityDBmPerHz: -110)
    static let measured = FrequencyRange(lowerHz: 432e6, upperHz: 436e6)!

    /// Mean band power of `frames` [dB], corrected and as the plain sum of points.
    func readings(_ frames: [SpectrumFrame], band: FrequencyRange) throws -> (corrected: Double, plainSum: Double) {
        var corrected = BandPowerAverage(band: band)
        var plain = BandPowerAverage(band: band)
        for frame in frames {
            corrected.add(frame)
            var uncorrected = frame
            uncorrected.noiseBandwidthHz = nil
            plain.add(uncorrected)
        }
        let correctedReading = corrected.take(), plainReading = plain.take()
        return (try #require(correctedReading).decibels, try #require(plainReading).decibels)
    }

    /// Frames of 430–440 MHz from a live source over an emulator.
    func frames(_ makeSource: (@escaping @Sendable (SpectrumFrame) -> Void) throws -> any SpectrumSource,
                count: Int) throws -> [SpectrumFrame] {
        let collector = FrameCollector()
        let source = try makeSource { collector.add($0) }
        try source.start(band: FrequencyRange(lowerHz: 430e6, upperHz: 440e6)!, binWidthHz: 50e3)
        let deadline = SystemClock().now + 20
        var wanted: [SpectrumFrame] = []
        while wanted.count < count, SystemClock().now < deadline {
            _ = collector.wait(for: collector.all.count + 1, seconds: 1)
            // a swept analyzer may first send its power-on band
            wanted = collector.all.filter { $0.startHz < 430.2e6 && $0.stopHz > 439.8e6 }
        }
        source.stop()
        #expect(wanted.count >= count)
        return wanted
    }

    @Test(arguments: TinySAModel.allCases)
    func tinySAReadsTheBandPower(model: TinySAModel) throws {
        let emulator = TinySAEmulator(scene: Self.scene.analyzerScene(seed: 11),
                                      options: .init(model: model, secondsPerPoint: 0))
        let transport = EmulatedTransport(emulator: emulator)
        defer { transport.close() }
        let frames = try frames({ try TinySASpectrumSource(transport: transport, onFrame: $0) }, count: 20)
        let frame = try #require(frames.last)
        // 200 points of 50 kHz; RBW from the firmware's auto rule: basic 112.1 kHz, Ultra 100 kHz
        #expect(frame.binWidthHz == 50e3)
        let rbw = model == .basic ? 112.1e3 : 100e3
        #expect(abs(try #require(frame.noiseBandwidthHz) - rbw * ResolutionFilter.gaussianNoiseBandwidthRatio) < 1)
        let (corrected, plain) = try readings(frames, band: Self.measured)
        let expected = Self.scene.power(in: Self.measured)
        #expect(abs(corrected - expected) < 0.5, "\(model): \(corrected) dBm, expected \(expected)")
        #expect(plain - expected > 2, "\(model): the plain sum \(plain) should read high")
    }

    @Test func rfExplorerReadsTheBandPower() throws {
        let emulator = RFExplorerEmulator(scene: Self.scene.analyzerScene(seed: 12), options: .init(secondsPerSweep: 0.002))
        let transport = EmulatedTransport(emulator: emulator)
        defer { transport.close() }
        let frames = try frames({ try RFExplorerSpectrumSource(transport: transport, onFrame: $0) }, count: 20)
        let frame = try #require(frames.last)
        // 112 points over 10 MHz: step 90 090 Hz, reported RBW 91 kHz
        #expect(abs(try #require(frame.noiseBandwidthHz) - 91e3 * ResolutionFilter.gaussianNoiseBandwidthRatio) < 1)
        let (corrected, _) = try readings(frames, band: Self.measured)
        let expected = Self.scene.power(in: Self.measured)
        #expect(abs(corrected - expected) < 0.5, "\(corrected) dBm, expected \(expected)")
    }

    /// I/Q of a tone `toneBins` bins above DC with amplitude `tone` and complex
    /// white noise of `sigma` per component, in quantisation steps.
    static func iq(samples: Int, fftSize: Int, toneBins: Double, tone: Double, sigma: Double,
                   random: inout SeededRandom) -> [(Double, Double)] {
        (0..<samples).map { n in
            let phase = 2 * Double.pi * toneBins * Double(n) / Double(fftSize)
            return (tone * cos(phase) + sigma * random.gaussian(), tone * sin(phase) + sigma * random.gaussian())
        }
    }

    /// The power of a tone of amplitude `tone` and of the noise in `bins` of
    /// `fftSize`, full scale = 128 steps [dB].
    static func expectedFFTPower(tone: Double, sigma: Double, bins: Int, fftSize: Int) -> Double {
        // rounding to whole steps adds 1/12 step² per component
        let noise = 2 * (sigma * sigma + 1.0 / 12) * Double(bins) / Double(fftSize)
        return Units.decibels(power: (tone * tone + noise) / (128 * 128))
    }

    /// A frame of the positive-frequency bins of an FFT-order spectrum
    /// (bin k centred on k bin widths), with the given noise bandwidth in bins.
    static func frame(_ powerDB: [Float], fftSize: Int, noiseBandwidthInBins: Double) -> SpectrumFrame {
        SpectrumFrame(startHz: -0.5, binWidthHz: 1, timestamp: 0, powerDB: Array(powerDB[0..<(fftSize / 2)]),
                      noiseBandwidthHz: noiseBandwidthInBins)
    }

    /// HackRF: hackrf_sweep's Hann window and |X/N|² scale; the band reads
    /// the tone plus its share of the noise.
    @Test func hackRFSweepFFTReadsTheBandPower() throws {
        let fftSize = 256
        let fft = SweepFFT(fftSize: fftSize, segments: 32, maxSamples: 8192)
        #expect(abs(fft.noiseBandwidthInBins - 0.375) < 0.003)
        var random = SeededRandom(seed: 21)
        var average = BandPowerAverage(band: FrequencyRange(lowerHz: 32, upperHz: 96)!)
        var plain = BandPowerAverage(band: average.band)
        for _ in 0..<8 {
            let bytes = Self.iq(samples: 8192, fftSize: fftSize, toneBins: 60.3, tone: 40, sigma: 10, random: &random)
                .flatMap { [UInt8(bitPattern: Int8(clamping: Int($0.0.rounded()))),
                            UInt8(bitPattern: Int8(clamping: Int($0.1.rounded())))] }
            let powerDB = bytes.withUnsafeBytes { Array(fft.process($0)) }
            let frame = Self.frame(powerDB, fftSize: fftSize, noiseBandwidthInBins: fft.noiseBandwidthInBins)
            average.add(frame)
            var uncorrected = frame
            uncorrected.noiseBandwidthHz = nil
            plain.add(uncorrected)
        }
        let expected = Self.expectedFFTPower(tone: 40, sigma: 10, bins: 64, fftSize: fftSize)
        let correctedReading = average.take(), plainReading = plain.take()
        let reading = try #require(correctedReading).decibels
        #expect(abs(reading - expected) < 0.5, "\(reading) dB, expected \(expected)")
        // the Hann window's mean square: the plain sum reads 4.3 dB low
        #expect(try #require(plainReading).decibels - expected < -3.5)
    }

    /// RTL-SDR: rtl_power's windows (here Blackman-Harris, tscope's
    /// default) and |X|²/N² scale.
    @Test(arguments: [SpectralWindow.blackmanHarris, .rectangle, .hamming])
    func rtlsdrHopSpectrumReadsTheBandPower(window: SpectralWindow) throws {
        let fftSize = 256
        let spectrum = HopPowerSpectrum(fftSize: fftSize, window: window)
        var random = SeededRandom(seed: 22)
        let accumulator = UnsafeMutablePointer<Float>.allocate(capacity: fftSize)
        defer { accumulator.deallocate() }
        accumulator.initialize(repeating: 0, count: fftSize)
        // offset binary around 127.5, as the dongle sends
        let bytes = Self.iq(samples: 64 * fftSize, fftSize: fftSize, toneBins: 60.3, tone: 40, sigma: 10, random: &random)
            .flatMap { [UInt8(clamping: 128 + Int($0.0.rounded(.down))), UInt8(clamping: 128 + Int($0.1.rounded(.down)))] }
        let transforms = bytes.withUnsafeBytes { spectrum.accumulate($0, into: accumulator) }
        let powerDB = (0..<fftSize).map { Float(10 * log10(Double(accumulator[$0]) / Double(transforms))) }
        let frame = Self.frame(powerDB, fftSize: fftSize, noiseBandwidthInBins: spectrum.noiseBandwidthInBins)
        let reading = try #require(BandPower.decibels(in: FrequencyRange(lowerHz: 32, upperHz: 96)!, of: frame))
        // u = 128 + ⌊x⌋ reads as u − 127.5: x to the nearest half step, error uniform over one step
        let expected = Self.expectedFFTPower(tone: 40, sigma: 10, bins: 64, fftSize: fftSize)
        #expect(abs(reading - expected) < 0.5, "\(window): \(reading) dB, expected \(expected)")
    }
}

import Analyzers
import DSP
import Foundation
import Signals
import Synchronization
import Testing
import USBDriver
@testable import Devices

/// rtl_power's hop plan, the hop spectrum against a plain DFT, and the whole
/// hopping pipeline on the emulator.
@Suite struct RTLSDRHopTests {
    @Test func fmBandPlanMatchesRtlPower() throws {
        // rtl_power -f 88M:108M:125k: 8 hops of 2.5 MHz, 32-point FFT, 78125 Hz bins
        let plan = try RTLSDRHopPlan(lowerHz: 88_000_000, upperHz: 108_000_000, maxBinHz: 125_000, crop: 0)
        #expect(plan.hopCount == 8 && plan.hopSpacingHz == 2_500_000 && plan.sampleRateHz == 2_500_000)
        #expect(plan.fftSize == 32 && plan.downsample == 1 && plan.binWidthHz == 78_125)
        #expect(plan.hopCenterHz(0) == 89_250_000 && plan.printedHalfWidthHz == 1_250_000)
        #expect(plan.keptBins == 0...31 && plan.bufferBytes == 16_384)
    }

    @Test func croppedPlanUsesMoreHopsAndDropsEdgeBins() throws {
        let plan = try RTLSDRHopPlan(lowerHz: 88_000_000, upperHz: 108_000_000, maxBinHz: 100_000, crop: 0.2)
        // bw_seen ≤ 2.8 MHz · 0.8 → 9 hops of 2 222 222 Hz at 2 777 777 S/s
        #expect(plan.hopCount == 9 && plan.hopSpacingHz == 2_222_222 && plan.sampleRateHz == 2_777_777)
        #expect(plan.fftSize == 32 && plan.keptBins == 3...28)
        // bin_count = ⌊32 · 0.8⌋ = 25; bw2 = ⌊2777777 · 25 / 64⌋
        #expect(plan.printedHalfWidthHz == 1_085_069)
    }

    @Test func narrowSpanDownsamplesAndGiantBinsSkipTheFFT() throws {
        let narrow = try RTLSDRHopPlan(lowerHz: 100_000_000, upperHz: 100_100_000, maxBinHz: 1_000, crop: 0)
        #expect(narrow.hopCount == 1 && narrow.downsample == 28 && narrow.sampleRateHz == 2_800_000)
        #expect(narrow.fftSize == 128 && narrow.binWidthHz == 781.25)
        let giant = try RTLSDRHopPlan(lowerHz: 100_000_000, upperHz: 1_000_000_000, maxBinHz: 1_000_000, crop: 0.3)
        #expect(giant.hopCount == 900 && giant.fftSize == 1 && giant.sampleRateHz == 1_000_000 && giant.crop == 0)
        #expect(throws: RTLSDRPlanError.self) {
            _ = try RTLSDRHopPlan(lowerHz: 108_000_000, upperHz: 88_000_000, maxBinHz: 1_000, crop: 0)
        }
        #expect(throws: RTLSDRPlanError.badCrop(1.5)) {
            _ = try RTLSDRHopPlan(lowerHz: 88_000_000, upperHz: 108_000_000, maxBinHz: 1_000, crop: 1.5)
        }
    }

    @Test(arguments: [(SpectralWindow.rectangle, 1), (.hamming, 1), (.blackmanHarris, 3), (.hannPoisson, 1)])
    func hopSpectrumMatchesAPlainDFT(window: SpectralWindow, downsample: Int) {
        let n = 64
        var random = SeededRandom(seed: 42)
        let iq = (0..<(2 * n * downsample)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let spectrum = HopPowerSpectrum(fftSize: n, window: window, downsample: downsample)
        var power = [Float](repeating: 0, count: n)
        let transforms = iq.withUnsafeBytes { bytes in
            power.withUnsafeMutableBufferPointer { spectrum.accumulate(bytes, into: $0.baseAddress!) }
        }
        #expect(transforms == 1)
        let reference = HopPowerSpectrum.referencePower(iq, fftSize: n, window: window, downsample: downsample)
        for k in 0..<n {
            let dB = 10 * log10(Double(power[k])), refDB = 10 * log10(reference[k])
            #expect(abs(dB - refDB) < 0.01, "bin \(k): \(dB) vs \(refDB) dB")
        }
    }

    @Test func accumulatorShiftsCropsAndNukesDCAsRtlPower() throws {
        let plan = try RTLSDRHopPlan(lowerHz: 100_000_000, upperHz: 102_000_000, maxBinHz: 300_000, crop: 0.25)
        let accumulator = RTLSDRHopAccumulator(plan: plan, window: .rectangle)
        // a constant (DC) input puts all power in FFT bin 0; rtl_power shows bin 1's value there
        let dc = [UInt8](repeating: 200, count: plan.bufferBytes)
        dc.withUnsafeBytes { accumulator.add(hop: 0, iq: $0) }
        let values = Array(accumulator.hopDecibels(0))
        #expect(values.count == plan.keptBins.count)
        #expect(values.allSatisfy { $0 < -100 }, "DC bin replaced by its silent neighbour: \(values)")
        #expect(accumulator.samples(hop: 0) == plan.bufferBytes / (2 * plan.fftSize))
        accumulator.reset()
        #expect(accumulator.hopDecibels(0).allSatisfy { $0.isNaN })
    }

    @Test func hoppingTheFMBandFindsTheCarrierWhereTheSceneHasIt() throws {
        let scene = DemoScene(seed: 5, noiseSigma: 2, carriers: [.init(frequencyHz: 95_300_000, amplitude: 30)])
        let emulator = RTLSDREmulator(scene: scene, options: .init(realTime: false))
        let transport = EmulatedTransport(emulator: emulator)
        let device = try RTLSDRDevice.open(transport: transport)
        let frames = Mutex<[SpectrumFrame]>([])
        let got = DispatchSemaphore(value: 0)
        let source = try RTLSDRSpectrumSource(device: device, onFrame: { frame in
            frames.withLock { $0.append(frame) }
            got.signal()
        })
        // 93–98 MHz: three hops, so the frame is assembled from several, and a debug
        // build on a loaded CI machine still delivers passes within the timeout
        try source.start(band: FrequencyRange(lowerHz: 93e6, upperHz: 98e6)!, binWidthHz: 50_000)
        #expect(got.wait(timeout: .now() + 60) == .success)
        #expect(got.wait(timeout: .now() + 60) == .success)
        source.stop()
        let frame = try #require(frames.withLock { $0.last })
        // bin 0 is centred on the band's low edge, as rtl_power's "Hz low" (RTLSDRHopPlan.binCenterHz)
        #expect(frame.binCenterHz(0) == 93e6 && abs(frame.stopHz - 98e6) <= frame.binWidthHz)
        #expect(frame.binWidthHz <= 50_000)
        let finite = frame.powerDB.filter(\.isFinite)
        #expect(Double(finite.count) > 0.95 * Double(frame.powerDB.count), "hops leave no gaps")
        let peak = try #require(frame.powerDB.indices.max { frame.powerDB[$0].nanToLow < frame.powerDB[$1].nanToLow })
        #expect(abs(frame.binCenterHz(peak) - 95.3e6) <= frame.binWidthHz)
        let median = finite.sorted()[finite.count / 2]
        #expect(frame.powerDB[peak] - median > 25, "carrier \(frame.powerDB[peak]) dB over median \(median) dB")
        let violations = transport.withEmulator { ($0 as! RTLSDREmulator).protocolViolations }
        #expect(violations.isEmpty, "\(violations)")
        #expect(source.counters.frames >= 2)
    }
}

private extension Float {
    var nanToLow: Float { isNaN ? -.infinity : self }
}

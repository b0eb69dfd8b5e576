import Analyzers
import DSP
import Foundation
import Signals
import Testing
import USBDriver
@testable import Devices

/// The emulated HackRF in plain receive mode, read synchronously (no
/// threads) through `RealtimeSpectrum`: every pulse is caught, a carrier
/// reads the same power as in sweep mode, the DC offset at the centre is
/// removed, and the source picks the mode by the band.
@Suite struct RealtimeModeTests {
    /// Emulator → receive-mode configuration → RealtimeSpectrum, pulled transfer by transfer.
    final class SynchronousStream {
        let emulator: HackRFEmulator
        let spectrum: RealtimeSpectrum
        let plan: RealtimeBandPlan
        private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: HackRFProtocol.transferSize, alignment: 16)

        init(scene: DemoScene, band: FrequencyRange, binWidthHz: Double, detector: SpectrumDetector) throws {
            emulator = HackRFEmulator(scene: scene, options: .init(pacing: .unlimited))
            let transport = EmulatorTestTransport(emulator: emulator)
            let driver = try HackRFSweepDriver(transport: transport)
            plan = HackRFReceiveMode.plan(band: band, binWidthHz: binWidthHz)
            try driver.configureReceive(sampleRateHz: UInt32(plan.sampleRateHz),
                                        basebandFilterHz: HackRFReceiveMode.basebandFilter(for: plan),
                                        frequencyHz: UInt64(plan.centreHz), gains: .sweepDefaults, ampEnabled: false,
                                        antennaPower: false)
            try transport.controlOut(.hackRF(.setTransceiverMode, value: HackRFTransceiverMode.receive.rawValue),
                                     data: [], timeoutMS: 100)
            spectrum = RealtimeSpectrum(fftSize: plan.fftSize, sampleRateHz: plan.sampleRateHz, detector: detector,
                                        format: .int8, keptBins: plan.keptBins)
        }

        deinit { buffer.deallocate() }

        /// frames covering `seconds` of the radio's time
        func frames(seconds: Double) throws -> [SpectrumFrame] {
            var frames: [SpectrumFrame] = []
            let wanted = Int(seconds * plan.sampleRateHz)
            while spectrum.sampleCount < wanted {
                let n = try emulator.bulkIn(endpoint: HackRFProtocol.bulkInEndpoint, into: buffer)
                spectrum.consume(UnsafeRawBufferPointer(rebasing: buffer[0..<n])) { bins, _ in
                    frames.append(SpectrumFrame(startHz: plan.frameStartHz, binWidthHz: plan.binWidthHz, timestamp: 0,
                                                powerDB: Array(bins)))
                }
            }
            return frames
        }
    }

    static let band = FrequencyRange(lowerHz: 430e6, upperHz: 440e6)!

    /// 21 pulses of 200 µs every 100 ms, the first at 50 ms: in 2.1 s of
    /// stream each shows as one run of frames, at its frequency — nothing
    /// between the FFTs goes unseen.
    @Test func everyPulseIsCaughtOnceAtItsFrequency() throws {
        let pulseHz = 437.3e6
        let scene = DemoScene(seed: 4, noiseSigma: 1, pulsedCarriers: [
            .init(frequencyHz: pulseHz, amplitude: 20, widthSeconds: 200e-6, periodSeconds: 0.1, phaseSeconds: 0.05),
        ])
        let stream = try SynchronousStream(scene: scene, band: Self.band, binWidthHz: 50_000, detector: .peak)
        let frames = try stream.frames(seconds: 2.1)
        #expect(frames.count >= 60, "\(frames.count) frames in 2.1 s")
        var runs: [(first: Int, peakHz: Double)] = []
        var previousShowed = false
        for (index, frame) in frames.enumerated() {
            let floor = median(frame.powerDB)
            let strongest = frame.powerDB.indices.max { frame.powerDB[$0] < frame.powerDB[$1] }!
            let shows = frame.powerDB[strongest] > floor + 20
            if shows && !previousShowed { runs.append((index, frame.binCenterHz(strongest))) }
            previousShowed = shows
        }
        #expect(runs.count == 21, "\(runs.count) pulses seen, 21 sent")
        for run in runs {
            #expect(abs(run.peakHz - pulseHz) <= stream.plan.binWidthHz, "pulse at \(run.peakHz) Hz")
        }
    }

    /// Channel power around a carrier (Σ bin power / the window's noise
    /// bandwidth in bins) in real time and in sweep mode: the same scale.
    @Test func aCarrierReadsTheSamePowerInRealTimeAndInSweepMode() throws {
        let carrierHz = 435.55e6
        let scene = DemoScene.generator(seed: 5, tones: [GeneratorTone(frequencyHz: carrierHz, levelDBm: -30)])
        func channelPower(_ frame: SpectrumFrame, noiseBandwidthInBins: Double) -> Double {
            var sum = 0.0
            for index in frame.powerDB.indices where abs(frame.binCenterHz(index) - carrierHz) <= 200_000 {
                sum += pow(10, Double(frame.powerDB[index]) / 10)
            }
            return 10 * log10(sum / noiseBandwidthInBins)
        }
        let stream = try SynchronousStream(scene: scene, band: Self.band, binWidthHz: 50_000, detector: .average)
        let realtime = try stream.frames(seconds: 0.2).map {
            channelPower($0, noiseBandwidthInBins: stream.spectrum.noiseBandwidthInBins)
        }
        let plan = try HackRFSweepPlan(ranges: [SweepRangeMHz(startMHz: 430, stopMHz: 440)], binWidthHz: 50_000)
        let sweep = try SynchronousSweep(scene: scene, plan: plan, detector: .average).frames(6).map {
            channelPower($0, noiseBandwidthInBins: SpectralWindow.hannMeanSquare(length: plan.fftSize))
        }
        let realtimeMean = realtime.reduce(0, +) / Double(realtime.count)
        let sweepMean = sweep.reduce(0, +) / Double(sweep.count)
        // amplitude 127·10^(−20/20) = 12.7 int8 units: (12.7/128)² → −20.07 dB, less the front end's response
        let expected = 20 * log10(DemoScene.amplitude(levelDBm: -30) / 128) + DemoSynthesizer.frontEndResponseDB(atHz: carrierHz)
        #expect(abs(realtimeMean - sweepMean) < 0.3, "real time \(realtimeMean) dB, sweep \(sweepMean) dB")
        #expect(abs(realtimeMean - expected) < 0.3, "real time \(realtimeMean) dB, the scene says \(expected) dB")
    }

    /// The receive path's DC offset is a spike in the raw samples; the bin
    /// at the tuned frequency reads the floor once it is removed.
    @Test func theSpikeAtTheTunedFrequencyIsRemoved() throws {
        let stream = try SynchronousStream(scene: DemoScene(seed: 6, noiseSigma: 1), band: Self.band, binWidthHz: 50_000,
                                           detector: .average)
        let frame = try #require(try stream.frames(seconds: 0.3).last)
        // a 10 MHz band is centred, DC 0.01·fs off its centre
        #expect(!stream.plan.isOffsetTuned && stream.plan.centreHz == Self.band.centerHz + 125_000)
        let tuned = Int(((stream.plan.centreHz - frame.startHz) / frame.binWidthHz).rounded(.down))
        let floor = median(frame.powerDB)
        #expect(frame.powerDB[tuned] < floor + 3, "tuned bin \(frame.powerDB[tuned]) dB, floor \(floor) dB")
        // and the emulator does put one there
        #expect(HackRFEmulator.receiveDCOffset.i != 0)
    }

    /// A carrier at the very centre of the band — where a user puts the one
    /// they measure — reads its level: DC (and its removal) is elsewhere.
    @Test(arguments: [(221.8e6, 222.2e6), (430e6, 440e6), (88.5e6, 107.5e6)])
    func aCarrierAtTheBandCentreReadsItsLevel(lower: Double, upper: Double) throws {
        let band = try #require(FrequencyRange(lowerHz: lower, upperHz: upper))
        let scene = DemoScene.generator(seed: 7, tones: [GeneratorTone(frequencyHz: band.centerHz, levelDBm: -30)])
        let stream = try SynchronousStream(scene: scene, band: band, binWidthHz: band.spanHz / 400, detector: .average)
        #expect(stream.plan.isOffsetTuned == (band.spanHz <= 8e6))
        let frames = try stream.frames(seconds: 0.15)
        let frame = try #require(frames.last)
        var sum = 0.0
        for index in frame.powerDB.indices where abs(frame.binCenterHz(index) - band.centerHz) <= 4 * frame.binWidthHz {
            sum += pow(10, Double(frame.powerDB[index]) / 10)
        }
        let power = 10 * log10(sum / stream.spectrum.noiseBandwidthInBins)
        let expected = 20 * log10(DemoScene.amplitude(levelDBm: -30) / 128)
            + DemoSynthesizer.frontEndResponseDB(atHz: band.centerHz)
        #expect(abs(power - expected) < 0.5, "\(band): \(power) dB, the scene says \(expected) dB")
    }

    /// Only a band filling the whole 20 MS/s has its tuned frequency (DC) at its centre.
    @Test func onlyAFullWidthBandIsTunedAtItsCentre() throws {
        let full = HackRFReceiveMode.plan(band: FrequencyRange(lowerHz: 88e6, upperHz: 108e6)!, binWidthHz: 50_000)
        #expect(full.centreHz == 98e6 && full.sampleRateHz == 20e6)
        let almost = HackRFReceiveMode.plan(band: FrequencyRange(lowerHz: 88e6, upperHz: 107.6e6)!, binWidthHz: 50_000)
        #expect(almost.centreHz - almost.band.centerHz == 200_000, "\(almost.centreHz)")
        let narrow = HackRFReceiveMode.plan(band: FrequencyRange(lowerHz: 100e6, upperHz: 108e6)!, binWidthHz: 50_000)
        #expect(narrow.isOffsetTuned && narrow.sampleRateHz == 20e6 && narrow.centreHz == 99e6)
        // from the tuned frequency to the band's far edge is 9 MHz: an 18 MHz filter at least
        #expect(HackRFReceiveMode.basebandFilter(for: narrow) == 20_000_000)
    }

    @Test func theSourceWatchesANarrowBandInRealTimeAndAWideOneBySweeping() throws {
        func dwell(_ band: FrequencyRange, mode: AnalysisMode) throws -> DwellTiming? {
            let emulator = HackRFEmulator(seed: 1, options: .init(pacing: .unlimited))
            let source = try HackRFSpectrumSource(transport: EmulatedTransport(emulator: emulator),
                                                  settings: .init(mode: mode), onFrame: { _ in })
            try source.start(band: band, binWidthHz: 100_000)
            defer { source.stop() }
            return source.dwellTiming
        }
        let narrow = FrequencyRange(lowerHz: 88e6, upperHz: 108e6)!, wide = FrequencyRange(lowerHz: 88e6, upperHz: 128e6)!
        #expect(try dwell(narrow, mode: .auto)?.realtime != nil)
        #expect(try dwell(wide, mode: .auto)?.realtime == nil)
        #expect(try dwell(narrow, mode: .sweep)?.realtime == nil)
        #expect(throws: HackRFSourceError.realtimeBandTooWide(widthHz: 40e6)) { try dwell(wide, mode: .realtime) }
    }
}

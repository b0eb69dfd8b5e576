import Analyzers
import DSP
import Foundation
import Signals
import Synchronization
import Testing
import ThreadKit
import USBDriver
@testable import Devices

/// A marker or peak on a CW tone reads the tone's level, wherever it falls
/// between bins, end to end on the emulated analyzers: generator tones of
/// known level at fractional-bin offsets 0 … 0.5, each read by the peak
/// readout (`BandMeasurements`, as `meter --peaks`) within 0.5 dB of the
/// level the scene injects, and within a fifth of a bin of its frequency.
/// The bin alone reads up to 7.4 dB low (Hann's coherent gain and scalloping).
@Suite(.serialized) struct MarkerToneLevelTests {
    static let band = FrequencyRange(lowerHz: 430e6, upperHz: 440e6)!
    static let offsets: [Double] = [0, 0.1, 0.2, 0.3, 0.4, 0.5]

    /// Tones 1.2 MHz apart (far outside each other's window), tone j at
    /// offset j of a bin from the centre of the frame bin nearest
    /// `firstHz` + j·1.2 MHz; the bin grid is the frame's.
    static func tones(startHz: Double, binWidthHz: Double, levelDBm: Double, firstHz: Double = 431.1e6) -> [GeneratorTone] {
        offsets.enumerated().map { j, offset in
            let bin = ((firstHz + Double(j) * 1.2e6 - startHz) / binWidthHz).rounded(.down)
            return GeneratorTone(frequencyHz: startHz + (bin + 0.5 + offset) * binWidthHz, levelDBm: levelDBm)
        }
    }

    /// The level the HackRF emulator puts a tone at, in the FFT's dBFS (int8 full scale = 128).
    static func hackRFLevelDB(_ tone: GeneratorTone) -> Double {
        20 * log10(DemoScene.amplitude(levelDBm: tone.levelDBm) / 128) + DemoSynthesizer.frontEndResponseDB(atHz: tone.frequencyHz)
    }

    /// Frames of the whole band from a live source.
    static func frames(count: Int, _ makeSource: (@escaping @Sendable (SpectrumFrame) -> Void) throws -> any SpectrumSource,
                       binWidthHz: Double) throws -> [SpectrumFrame] {
        let collector = FrameCollector()
        let source = try makeSource { collector.add($0) }
        try source.start(band: band, binWidthHz: binWidthHz)
        let deadline = SystemClock().now + 60
        var wanted: [SpectrumFrame] = []
        while wanted.count < count, SystemClock().now < deadline {
            _ = collector.wait(for: collector.all.count + 1, seconds: 1)
            // a sweep the DSP thread fell behind on (blocks dropped from the ring under a loaded
            // machine: the emulator is unpaced) has NaN bins where those blocks were: not a reading
            wanted = collector.all.filter {
                $0.startHz <= band.lowerHz + $0.binWidthHz && $0.stopHz >= band.upperHz - $0.binWidthHz
                    && $0.powerDB.allSatisfy { $0.isFinite }
            }
        }
        source.stop()
        try #require(wanted.count >= count)
        return Array(wanted.suffix(count))
    }

    /// The peaks and each tone's marker reading, checked; returns the worst errors [dB] before (the bin) and after.
    @discardableResult
    static func check(_ frame: SpectrumFrame, tones: [GeneratorTone], expected: (GeneratorTone) -> Double,
                      label: String) -> (before: Double, after: Double) {
        #expect(frame.windowing != nil, "\(label): an FFT-made frame says its window")
        let measured = BandMeasurements.measure(frame, band: band, occupiedPercent: nil, peakCount: tones.count,
                                                excursionDB: 6)
        var worstBefore = 0.0, worstAfter = 0.0
        for tone in tones {
            let level = expected(tone)
            let peak = measured.peaks.min { abs($0.hz - tone.frequencyHz) < abs($1.hz - tone.frequencyHz) }
            guard let peak else {
                Issue.record("\(label): no peak for \(tone)")
                continue
            }
            let bin = Int(((tone.frequencyHz - frame.startHz) / frame.binWidthHz).rounded(.down))
            let rawBin = max(frame.powerDB[bin], frame.powerDB[bin + 1], frame.powerDB[bin - 1])
            worstBefore = max(worstBefore, abs(Double(rawBin) - level))
            worstAfter = max(worstAfter, abs(Double(peak.decibels) - level))
            let offset = (tone.frequencyHz - frame.startHz) / frame.binWidthHz - Double(bin) - 0.5
            #expect(abs(Double(peak.decibels) - level) < 0.5,
                    "\(label): tone \(offset) bin off centre reads \(peak.decibels) dB, sent \(level) dB")
            #expect(abs(peak.hz - tone.frequencyHz) < 0.2 * frame.binWidthHz,
                    "\(label): tone at \(tone.frequencyHz) Hz read at \(peak.hz) Hz (bin \(frame.binWidthHz) Hz)")
        }
        print("\(label): worst peak-bin error \(worstBefore) dB, tone reading \(worstAfter) dB")
        return (worstBefore, worstAfter)
    }

    @Test func hackRFSweepPeaksReadEachTonesLevel() throws {
        // 430 MHz start, bins of 20 MHz / 404
        let plan = try HackRFSweepPlan(ranges: [SweepRangeMHz(startMHz: 430, stopMHz: 440)], binWidthHz: 50_000)
        let tones = Self.tones(startHz: 430e6, binWidthHz: plan.binWidthHz, levelDBm: -30)
        let frames = try SynchronousSweep(scene: .generator(seed: 31, tones: tones), plan: plan, detector: .average).frames(2)
        let frame = try #require(frames.last)
        #expect(frame.windowing == FFTWindowing(.hann, length: plan.fftSize))
        let (before, _) = Self.check(frame, tones: tones, expected: Self.hackRFLevelDB, label: "HackRF sweep")
        #expect(before > 6, "the bin alone reads low by the window's coherent gain")
    }

    @Test func hackRFLiveSweepAndRealTimeMarkersReadEachTonesLevel() throws {
        for mode in [AnalysisMode.sweep, .realtime] {
            let probe = HackRFReceiveMode.plan(band: Self.band, binWidthHz: 50_000)
            let startHz = mode == .sweep ? 430e6 : probe.frameStartHz
            let binWidth = mode == .sweep ? try HackRFSweepPlan(ranges: [SweepRangeMHz(startMHz: 430, stopMHz: 440)],
                                                                 binWidthHz: 50_000).binWidthHz : probe.binWidthHz
            let tones = Self.tones(startHz: startHz, binWidthHz: binWidth, levelDBm: -30)
            var settings = HackRFSpectrumSource.Settings()
            settings.mode = mode
            settings.detector = .average
            let frames = try Self.frames(count: 2, {
                let emulator = HackRFEmulator(scene: .generator(seed: 32, tones: tones), options: .init(pacing: .unlimited))
                return try HackRFSpectrumSource(transport: EmulatedTransport(emulator: emulator), settings: settings,
                                                onFrame: $0)
            }, binWidthHz: 50_000)
            let frame = try #require(frames.last)
            Self.check(frame, tones: tones, expected: Self.hackRFLevelDB, label: "HackRF \(mode)")
            // what watch's markers call on a peak bin (MarkerSet.reading): each reads its tone
            for peak in SpectrumMeasurements.peaks(frame.powerDB, excursionDB: 6, count: tones.count) {
                let reading = ToneLevel.read(bin: peak.bin, of: frame)
                let tone = try #require(tones.min { abs($0.frequencyHz - reading.hz) < abs($1.frequencyHz - reading.hz) })
                #expect(abs(Double(reading.decibels) - Self.hackRFLevelDB(tone)) < 0.5, "\(mode): \(reading) for \(tone)")
                #expect(abs(reading.hz - tone.frequencyHz) < 0.2 * frame.binWidthHz, "\(mode): \(reading) for \(tone)")
            }
        }
    }

    /// RTL-SDR (rtl_power's Blackman-Harris by default): each peak reads the
    /// tone's channel power (tested against the scene in ChannelPowerTests),
    /// wherever the tone falls.
    @Test func rtlsdrPeaksReadEachTonesChannelPower() throws {
        // the bin grid first, from a frame of an empty scene
        let grid = try #require(try Self.rtlsdrFrames(.generator(seed: 33, tones: []), count: 1).last)
        // clear of the hops' centres, where rtl_power replaces the DC bin by its neighbour (a tone
        // beside it loses a true neighbour: up to 0.9 dB off): moved 4 bins up where within 3
        let plan = try RTLSDRHopPlan(lowerHz: 430_000_000, upperHz: 440_000_000, maxBinHz: 50_000, crop: 0.25)
        let centres = (0..<plan.hopCount).map { plan.binCenterHz(hop: $0, bin: plan.fftSize / 2) }
        let tones = Self.tones(startHz: grid.startHz, binWidthHz: grid.binWidthHz, levelDBm: -15).map { tone in
            var moved = tone
            if centres.contains(where: { abs($0 - tone.frequencyHz) < 3 * grid.binWidthHz }) {
                moved.frequencyHz += 4 * grid.binWidthHz
            }
            return moved
        }
        let frame = try #require(try Self.rtlsdrFrames(.generator(seed: 34, tones: tones), count: 2).last)
        #expect(frame.startHz == grid.startHz && frame.binWidthHz == grid.binWidthHz)
        guard case .rtlPower = frame.windowing?.window else {
            Issue.record("RTL-SDR frame without its window: \(String(describing: frame.windowing))")
            return
        }
        Self.check(frame, tones: tones, expected: { tone in
            // the tone's channel power: ±5 bins around it, where Blackman-Harris puts its power
            let around = FrequencyRange(lowerHz: tone.frequencyHz - 5 * frame.binWidthHz,
                                        upperHz: tone.frequencyHz + 5 * frame.binWidthHz)!
            return BandPower.decibels(in: around, of: frame) ?? .nan
        }, label: "RTL-SDR")
    }

    static func rtlsdrFrames(_ scene: DemoScene, count: Int) throws -> [SpectrumFrame] {
        try frames(count: count, { onFrame in
            let emulator = RTLSDREmulator(scene: scene, options: .init(realTime: false))
            return try RTLSDRSpectrumSource(device: try RTLSDRDevice.open(transport: EmulatedTransport(emulator: emulator)),
                                     onFrame: onFrame)
        }, binWidthHz: 50_000)
    }

    /// A noise-like input's channel power is what it was: the correction is the markers' alone.
    @Test func noiseChannelPowerIsUnchanged() throws {
        let plan = try HackRFSweepPlan(ranges: [SweepRangeMHz(startMHz: 430, stopMHz: 440)], binWidthHz: 50_000)
        let frame = try #require(try SynchronousSweep(scene: DemoScene(seed: 35, noiseSigma: 8), plan: plan,
                                                      detector: .average).frames(2).last)
        var plain = frame
        plain.windowing = nil
        let measured = FrequencyRange(lowerHz: 431e6, upperHz: 439e6)!
        let withWindow = try #require(BandPower.decibels(in: measured, of: frame))
        #expect(withWindow == BandPower.decibels(in: measured, of: plain))
        // σ = 8 int8 steps per component over a 20 MHz stream, 8 of them in the band: 2·64/128² · 8/20
        let expected = 10 * log10(2 * 64.0 / (128 * 128) * 8 / 20)
        #expect(abs(withWindow - expected) < 1, "\(withWindow) dB, expected about \(expected) dB")
    }
}

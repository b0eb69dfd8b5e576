import Foundation
import Testing
@testable import DSP

/// Zero span's DSP (`ZeroSpanDetector` → `ZeroSpanRBWFilter` →
/// `PulseMeasurement`) over real I/Q: five bursts of a 2.4 GHz toy-car
/// remote recorded by a HackRF One (Fixtures/README.md: source, licence,
/// offsets). The reference numbers come from two numpy one-offs run on the
/// same 10,000 bytes (Python 3, numpy; not part of the build):
///
/// - raw, no filter: a burst is a run of more than 20 non-zero samples;
///   its −3 dB edges are the first and last samples at half its peak |x|².
///   Every burst is 187.0 µs wide (374 samples) at −3 dB; their −3 dB
///   starts are at samples 113, 1368, 2367, 3369 and 4367 of the excerpt
///   (mean spacing 531.75 µs). The first 5 samples of each burst are the
///   transmitter turning on: 6 dB low and swinging ±900 kHz.
/// - filtered: the wanted frequency at +120 kHz (midway between the FSK
///   tones the numpy histogram of the phase steps puts at −120 and
///   +360 kHz), four one-pole stages each passing 2^(−1/4) of the power at
///   ±RBW/2 (the filter's stated shape, α by bisection), RBW 800 kHz, |y|²,
///   crossings interpolated linearly in dB: −3 dB widths 184.91, 185.06,
///   185.22, 185.21, 185.34 µs; rising −3 dB crossings at samples 116.57,
///   1371.24, 2369.76, 3371.80, 4370.35; peaks −15.87, −16.15, −15.92,
///   −16.17, −15.88 dBFS.
///
/// The RBW is 800 kHz, wider than `ZeroSpanPlan` lets a live radio use
/// (there the radio's DC offset sits fs/4 away); a recording has no such
/// offset to keep out, and the FSK's two tones need the width to read as
/// one envelope (each is 1.1 dB down at ±240 kHz).
@Suite struct ZeroSpanRealDataTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/rc-car-light-excerpt.cs8")
    static let sampleRate = 2e6
    static let rbw = 800e3

    /// The excerpt through the detector: one point per sample [dBFS], and the first point's sample index.
    static func trace() throws -> (levels: [Float], firstSample: Int) {
        let bytes = try Data(contentsOf: fixture)
        #expect(bytes.count == 10_000)
        let filter = try #require(ZeroSpanRBWFilter(rbwHz: rbw, sampleRateHz: sampleRate))
        // the recording is tuned 120 kHz below the wanted frequency: tuning − wanted = −120 kHz
        let detector = ZeroSpanDetector(filter: filter, format: .int8, samplesPerPoint: 1, offsetHz: -120e3)
        var levels: [Float] = []
        var first: Int?
        bytes.withUnsafeBytes { raw in
            detector.consume(raw) { power, sample in
                if first == nil { first = sample }
                levels.append(Float(10 * log10(max(power, 1e-30))))
            }
        }
        return (levels, try #require(first))
    }

    @Test func theBurstsReadAsNumpyReadsThemThroughTheSameFilter() throws {
        let (levels, firstSample) = try Self.trace()
        let seconds = 1 / Self.sampleRate
        let train = PulseMeasurement.measure(levelsDB: levels, pointSeconds: seconds, sampleSeconds: seconds)
        // the bursts; the rest are the isolated samples the authors left between them (numpy: 127 runs of 1–3 samples)
        let bursts = train.pulses.filter { $0.widthSeconds > 50e-6 }
        #expect(bursts.count == 5, "\(train.pulses.map(\.widthSeconds))")
        print("zero span over the RC-car excerpt: pulse widths [µs]", train.pulses.map { ($0.widthSeconds * 1e7).rounded() / 10 })
        let widths = [184.91, 185.06, 185.22, 185.21, 185.34].map { $0 * 1e-6 }
        let rising = [116.57, 1371.24, 2369.76, 3371.80, 4370.35]
        let peaks = [-15.87, -16.15, -15.92, -16.17, -15.88]
        for (k, burst) in bursts.enumerated() where k < 5 {
            // one sample: the resolution of both readings
            #expect(abs(burst.widthSeconds - widths[k]) < seconds, "burst \(k): \(burst.widthSeconds * 1e6) µs")
            let start = Double(firstSample) + burst.startSeconds / seconds
            #expect(abs(start - rising[k]) < 1, "burst \(k) starts at sample \(start)")
            #expect(abs(burst.peakDB - peaks[k]) < 0.1, "burst \(k): peak \(burst.peakDB) dBFS")
        }
    }

    @Test func theBurstsKeepTheirRecordedWidthAndSpacingWithinTheFiltersRiseTime() throws {
        let (levels, _) = try Self.trace()
        let seconds = 1 / Self.sampleRate
        let rise = ZeroSpanRBWFilter.riseTimeTimesRBW / Self.rbw
        let train = PulseMeasurement.measure(levelsDB: levels, pointSeconds: seconds, sampleSeconds: seconds)
        let bursts = train.pulses.filter { $0.widthSeconds > 50e-6 }
        try #require(bursts.count == 5)
        // spacing: every burst's edge is delayed alike, so the mean start-to-start spacing is the recording's
        let period = (bursts[4].startSeconds - bursts[0].startSeconds) / 4
        #expect(abs(period - 531.75e-6) < rise, "period \(period * 1e6) µs")
        // width: within the rise time, plus the turn-on's 5 samples the filter partly rejects (out of its band)
        for burst in bursts {
            #expect(abs(burst.widthSeconds - 187.0e-6) < rise + 5 * seconds, "\(burst.widthSeconds * 1e6) µs")
        }
    }

    @Test func theGeneralShiftMatchesTheQuarterRateOne() throws {
        // the same samples with offset fs/4 given explicitly and through the phasor path (fs/4 + a hair)
        let bytes = try Data(contentsOf: Self.fixture)
        func levels(offset: Double?) throws -> [Double] {
            let filter = try #require(ZeroSpanRBWFilter(rbwHz: 200e3, sampleRateHz: Self.sampleRate))
            let detector = ZeroSpanDetector(filter: filter, format: .int8, samplesPerPoint: 10, offsetHz: offset)
            var out: [Double] = []
            bytes.withUnsafeBytes { raw in detector.consume(raw) { power, _ in out.append(power) } }
            return out
        }
        let quarter = try levels(offset: nil)
        let phasor = try levels(offset: Self.sampleRate / 4 + 1e-6)
        #expect(quarter.count == phasor.count && !quarter.isEmpty)
        let worst = zip(quarter, phasor).map { abs($0 - $1) / max($0, 1e-9) }.max() ?? 1
        #expect(worst < 1e-3, "largest relative difference \(worst)")
    }
}

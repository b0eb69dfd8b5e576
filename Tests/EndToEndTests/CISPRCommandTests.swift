import Foundation
import Testing

/// `--detector cispr-average` and `--rbw cispr` through the binary, on the
/// demo HackRF with a keyed carrier added to its scene (`--demo-pulse
/// MHz:dBm:width_µs:period_ms`). At 500 MHz (CISPR band D: 120 kHz at 6 dB)
/// the demo watches 499–501 MHz in real time at 8 MS/s. The expectations are
/// the physics of the detectors and of a resolution bandwidth against a
/// pulse, referred to the same carrier left on, read by the same command.
@Suite struct CISPRCommandTests {
    /// `meter --json` once: the strongest peak's level read as a tone [dB] and the FFT size used
    func toneLevel(_ options: [String]) throws -> (decibels: Double, hz: Double, fftSize: Int, sampleRateHz: Double) {
        let result = try run(Paths.tscope, ["meter", "--device", "demo", "--band", "499:501", "-n", "2", "--json",
                                            "--peaks", "1"] + options)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n")
        let last = try #require(lines.last)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        let peak = try #require((object["peaks"] as? [[String: Any]])?.first, "\(object)")
        return (try #require(peak["db"] as? Double), try #require(peak["hz"] as? Double),
                try #require(object["fft_size"] as? Int), try #require(object["sample_rate_hz"] as? Double))
    }

    /// the carrier at −10 dBm, on for `widthMicroseconds` of every `periodMilliseconds`
    func pulse(widthMicroseconds: Double, periodMilliseconds: Double) -> [String] {
        ["--demo-pulse", "500:-10:\(widthMicroseconds):\(periodMilliseconds)"]
    }

    /// A carrier keyed on for 10 % and 50 % of each 10 ms: the CISPR average
    /// reads 20·log10(d) below the carrier left on, the RMS (power mean)
    /// 10·log10(d). The bins are CISPR band D's (N = 8 MS/s ÷ 60 kHz ≈ 134).
    @Test(arguments: [0.1, 0.5])
    func cisprAverageReadsTwentyLogDutyAndRMSTenLogDuty(duty: Double) throws {
        let carrier = try toneLevel(["--rbw", "cispr", "--detector", "rms"] + pulse(widthMicroseconds: 9990, periodMilliseconds: 10))
        let width = duty * 10_000
        let cispr = try toneLevel(["--rbw", "cispr", "--detector", "cispr-average"] + pulse(widthMicroseconds: width, periodMilliseconds: 10))
        let rms = try toneLevel(["--rbw", "cispr", "--detector", "rms"] + pulse(widthMicroseconds: width, periodMilliseconds: 10))
        // the demo's noise adds its mean envelope during the off time: at most a few tenths of a dB at 10 %
        #expect(abs((cispr.decibels - carrier.decibels) - 20 * log10(duty)) < 0.5,
                "CISPR average \(cispr.decibels - carrier.decibels) dB from the carrier, physics \(20 * log10(duty))")
        #expect(abs((rms.decibels - carrier.decibels) - 10 * log10(duty)) < 0.3,
                "RMS \(rms.decibels - carrier.decibels) dB from the carrier, physics \(10 * log10(duty))")
        // the bins are CISPR band D's: 6 dB bandwidth 2 bins = 120 kHz within 1 %
        let sixDB = 2 * cispr.sampleRateHz / Double(cispr.fftSize)
        #expect(abs(sixDB - 120e3) < 1.2e3, "6 dB bandwidth \(sixDB) Hz from N = \(cispr.fftSize)")
        #expect(abs(cispr.hz - 500e6) < cispr.sampleRateHz / Double(cispr.fftSize), "tone at \(cispr.hz) Hz")
    }

    /// A 50 µs pulse every 0.5 ms on the peak detector: with the meter's own
    /// bins (an FFT far longer than the pulse: bins far narrower than 1/50 µs =
    /// 20 kHz) it reads well below the carrier, as a narrow resolution
    /// bandwidth does; with `--rbw cispr` (band D's 120 kHz: an FFT of about
    /// 17 µs) it reads the carrier's level, and the CISPR average 20 dB below.
    @Test func cisprBinsFollowAShortPulseThatNarrowBinsCannot() throws {
        let short = pulse(widthMicroseconds: 50, periodMilliseconds: 0.5)
        let carrier = try toneLevel(["--rbw", "cispr", "--detector", "rms"] + pulse(widthMicroseconds: 9990, periodMilliseconds: 10))
        let narrow = try toneLevel(["--detector", "peak"] + short)
        let cisprBins = try toneLevel(["--rbw", "cispr", "--detector", "peak"] + short)
        let pulseSamples = 50e-6 * narrow.sampleRateHz
        #expect(Double(narrow.fftSize) > 4 * pulseSamples, "the meter's own FFT (\(narrow.fftSize)) is longer than the pulse")
        #expect(Double(cisprBins.fftSize) < pulseSamples, "the CISPR FFT (\(cisprBins.fftSize)) is shorter than the pulse")
        // the whole pulse inside a Hann window at its centre: |X| falls to Σ(on) w / Σ w of the carrier's
        let n = narrow.fftSize, on = Int(pulseSamples.rounded())
        let window = (0..<n).map { 0.5 * (1 - cos(2 * Double.pi * Double($0) / Double(n - 1))) }
        let centred = window[(n - on) / 2..<(n + on) / 2].reduce(0, +) / window.reduce(0, +)
        let desensitised = 20 * log10(centred)
        #expect(narrow.decibels - carrier.decibels < -8, "narrow bins: \(narrow.decibels - carrier.decibels) dB")
        #expect(narrow.decibels - carrier.decibels > desensitised - 1,
                "narrow bins: \(narrow.decibels - carrier.decibels) dB, window arithmetic \(desensitised) dB")
        #expect(abs(cisprBins.decibels - carrier.decibels) < 0.7, "CISPR bins: \(cisprBins.decibels - carrier.decibels) dB")
        let average = try toneLevel(["--rbw", "cispr", "--detector", "cispr-average"] + short)
        #expect(abs((average.decibels - carrier.decibels) - 20 * log10(0.1)) < 0.7,
                "CISPR average \(average.decibels - carrier.decibels) dB")
    }

    @Test func badValuesEndInOneLine() throws {
        let unknown = try run(Paths.tscope, ["meter", "--device", "demo", "--band", "499:501", "-n", "1", "--rbw", "cispr-x"])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("--rbw cispr-x: expected cispr"), "\(unknown.stderr)")
        let detector = try run(Paths.tscope, ["meter", "--device", "demo", "--band", "499:501", "-n", "1",
                                              "--detector", "quasi-peak"])
        #expect(detector.status != 0 && detector.stderr.contains("quasi-peak"), "\(detector.stderr)")
        let outside = try run(Paths.tscope, ["meter", "--device", "demo", "--band", "0.001:0.005", "-n", "1",
                                             "--rbw", "cispr"])
        #expect(outside.status != 0, "\(outside.stdoutText)")
        #expect(outside.stderr.contains("outside CISPR 16-1-1's bands"), "\(outside.stderr)")
        let tinySA = try run(Paths.tscope, ["meter", "--device", "demo-tinysa", "--band", "499:501", "-n", "1",
                                            "--rbw", "cispr"])
        #expect(tinySA.status != 0 && tinySA.stderr.contains("filters and detects on the device"), "\(tinySA.stderr)")
        for result in [unknown, detector, outside, tinySA] {
            #expect(result.stderr.split(separator: "\n").filter { $0.hasPrefix("Error") }.count == 1, "\(result.stderr)")
        }
    }

    /// `sweep` (hackrf_sweep's output) takes the CISPR bins and detector too.
    @Test func sweepWritesCISPRBins() throws {
        let result = try run(Paths.tscope, ["sweep", "--device", "demo", "-f", "480:500", "-N", "1", "--rbw", "cispr",
                                            "--detector", "cispr-average"])
        #expect(result.status == 0, "\(result.stderr)")
        let first = try #require(result.stdoutText.split(separator: "\n").first)
        let binWidth = try #require(Double(first.split(separator: ",")[4].trimmingCharacters(in: .whitespaces)))
        // hackrf_sweep's N for 60 kHz: ⌊20e6 / 59 985⌋ = 333, padded to 340: 58.8 kHz bins, 117.6 kHz at 6 dB
        #expect(abs(binWidth - 20e6 / 340) < 1, "\(binWidth)")
    }
}

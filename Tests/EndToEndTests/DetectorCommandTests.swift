import DSP
import Foundation
import Testing

/// `--detector` end to end on the demo HackRF, whose scene keys a carrier at
/// 1030 MHz on for 50 µs every 2.5 ms.
@Suite struct DetectorCommandTests {
    /// Fraction of sweeps whose 1030–1031 MHz bin (the first of the line
    /// starting at 1030 MHz) rises 10 dB over that line's median.
    func pulseFraction(detector: String, sweeps: Int = 400) throws -> Double {
        let result = try run(Paths.tscope, ["sweep", "--device", "demo", "-f", "1020:1040", "-w", "1000000",
                                            "-N", "\(sweeps)", "--detector", detector])
        #expect(result.status == 0, "\(result.stderr)")
        var seen = 0, shown = 0
        for line in result.stdoutText.split(separator: "\n") {
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count > 6, fields[2] == "1030000000" else { continue }
            let values = fields[6...].compactMap(Double.init)
            let median = values.sorted()[values.count / 2]
            seen += 1
            if values[0] > median + 10 { shown += 1 }
        }
        #expect(seen == sweeps)
        return Double(shown) / Double(max(1, seen))
    }

    @Test func peakShowsThePulsedTransmitterAsOftenAsTheDwellAllowsAndSampleRarely() throws {
        let peak = try pulseFraction(detector: "peak")
        let sample = try pulseFraction(detector: "sample")
        // 2 tuning steps of 1.2288 ms per sweep; peak watches 409 µs of each, sample 1 µs
        let steps = 2
        let expectedPeak = DwellTiming.hackRFSweep(fftSize: 20, detector: .peak, steps: steps)
            .interceptFraction(pulseWidthSeconds: 50e-6, periodSeconds: 2.5e-3)
        let expectedSample = DwellTiming.hackRFSweep(fftSize: 20, detector: .sample, steps: steps)
            .interceptFraction(pulseWidthSeconds: 50e-6, periodSeconds: 2.5e-3)
        #expect(abs(peak - expectedPeak) < 0.06, "peak \(peak), dwell arithmetic \(expectedPeak)")
        #expect(sample < expectedSample + 0.03, "sample \(sample), at most \(expectedSample)")
        #expect(peak > 4 * sample, "peak \(peak) vs sample \(sample)")
    }

    @Test func meterJSONSaysHowLongEachFrequencyIsWatched() throws {
        func timing(_ detector: String) throws -> (dwell: Double, revisit: Double, duty: Double) {
            let result = try run(Paths.tscope, ["meter", "--device", "demo", "--band", "88:108", "-n", "1", "--json",
                                                "--detector", detector, "--mode", "sweep"])
            #expect(result.status == 0, "\(result.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdoutText.utf8)) as? [String: Any])
            let dwell = try #require(object["dwell_s"] as? Double)
            let revisit = try #require(object["revisit_s"] as? Double)
            let duty = try #require(object["duty"] as? Double)
            #expect(revisit > 0 && abs(duty - dwell / revisit) < 1e-5, "\(object)")
            return (dwell, revisit, duty)
        }
        // sample: the plan's N samples at 20 MS/s; average: every whole N-sample segment of the block's 8187
        let sample = try timing("sample")
        let fftSize = sample.dwell * 20e6
        #expect(abs(fftSize - fftSize.rounded()) < 1e-6 && fftSize >= 4, "N = \(fftSize)")
        let average = try timing("average")
        let n = Int(fftSize.rounded())
        #expect(abs(average.dwell - Double(8187 / n * n) / 20e6) < 1e-12, "average dwell \(average.dwell), N = \(n)")
        // one sweep of 88–108 MHz: steps of 1.2288 ms each (two discarded blocks and a kept one)
        let steps = average.revisit / (3 * 8192 / 20e6)
        #expect(abs(steps - steps.rounded()) < 1e-6 && steps >= 1 && sample.revisit == average.revisit)
    }

    @Test func sweepNamesAnOptionItDoesNotKnow() throws {
        let result = try run(Paths.tscope, ["sweep", "-z", "3", "-N", "1"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("Unknown option '-z'"), "\(result.stderr)")
        let stray = try run(Paths.tscope, ["sweep", "-N", "1", "out.csv"])
        #expect(stray.status == 64 && stray.stderr.contains("unexpected argument 'out.csv'"), "\(stray.stderr)")
    }
}

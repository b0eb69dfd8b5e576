import DSP
import Devices
import Foundation
import Testing

/// Real-time mode through the commands, on the emulated HackRF: a
/// transmitter keys 21 pulses of 200 µs every 500 ms (on the radio's own
/// sample clock, the first 250 ms after the stream starts) at 305.5 MHz.
/// `events` on the 10 MHz band around it reports every one in real time,
/// each once at its frequency; swept, it sees about as many as the dwell
/// arithmetic allows (a quarter to a third).
@Suite struct RealtimeModeCommandTests {
    static let pulse = "305.5:-20:200:500:250:21"

    func events(_ mode: String) throws -> [[String: Any]] {
        let result = try run(Paths.tscope, ["events", "--device", "demo", "--demo-pulse", Self.pulse, "--band", "300:310",
                                            "--above", "-40", "--json", "--duration", "12", "--mode", mode],
                             timeoutSeconds: 60)
        #expect(result.status == 0, "\(result.stderr)")
        return try result.stdoutText.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }.filter { $0["gap"] == nil }
    }

    @Test func realTimeReportsEveryPulseOnceAndSweepingAboutAQuarter() throws {
        let realtime = try events("realtime")
        #expect(realtime.count == 21, "\(realtime.count) events: \(realtime.map { $0["start"] ?? "" })")
        for event in realtime {
            let hz = event["peak_hz"] as? Double ?? 0
            #expect(abs(hz - 305.5e6) < 100e3, "an event at \(hz) Hz")
        }
        // one event per pulse: consecutive starts 500 ms apart (± a frame or two)
        let starts = realtime.compactMap { ($0["start"] as? String).flatMap(Self.seconds) }
        for (a, b) in zip(starts, starts.dropFirst()) {
            #expect(abs(b - a - 0.5) < 0.1, "events \(b - a) s apart")
        }

        let swept = try events("sweep")
        // hackrf_sweep's plan for 300–310 MHz: 2 steps of 1.2288 ms; the peak detector watches 409.6 µs of
        // each, so a 200 µs pulse overlaps the dwell at its frequency in (409.6 + 200) / 2457.6 of sweeps
        let plan = try HackRFSweepPlan(ranges: [SweepRangeMHz(startMHz: 300, stopMHz: 310)], binWidthHz: 100_000)
        let timing = DwellTiming.hackRFSweep(fftSize: plan.fftSize, detector: .peak, steps: plan.stepFrequenciesHz.count)
        let expected = timing.interceptFraction(pulseWidthSeconds: 200e-6, periodSeconds: timing.revisitSeconds)
        let fraction = Double(swept.count) / 21
        // 21 trials: ±3σ of a binomial around the arithmetic
        let sigma = (expected * (1 - expected) / 21).squareRoot()
        #expect(swept.count < 21 && abs(fraction - expected) < 3 * sigma + 0.05,
                "sweep: \(swept.count) of 21 (\(fraction)), the dwell arithmetic says \(expected)")
    }

    @Test func realtimeOnABandWiderThanTheRadioStreamsIsAUsageError() throws {
        let result = try run(Paths.tscope, ["meter", "--device", "demo", "--band", "400:440", "--mode", "realtime", "-n", "1"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--mode realtime: the band is 40 MHz wide; the HackRF One streams at most 20 MHz"),
                "\(result.stderr)")
        let rtl = try run(Paths.tscope, ["watch", "--device", "demo-rtlsdr", "--band", "100:103", "--mode", "realtime"])
        #expect(rtl.status == 64 && rtl.stderr.contains("the RTL-SDR streams at most 2 MHz"), "\(rtl.stderr)")
        let tinySA = try run(Paths.tscope, ["meter", "--device", "demo-tinysa", "--band", "100:101", "--mode", "realtime"])
        #expect(tinySA.status == 64 && tinySA.stderr.contains("only sweeps"), "\(tinySA.stderr)")
        let sweep = try run(Paths.tscope, ["sweep", "-f", "100:110", "-1", "--mode", "realtime"])
        #expect(sweep.status == 64 && sweep.stderr.contains("sweep writes hackrf_sweep's"), "\(sweep.stderr)")
    }

    /// `meter --json` states the mode and what its probability of intercept rests on.
    @Test func meterStatesTheModeFFTOverlapAndShortestBurst() throws {
        let result = try run(Paths.tscope, ["meter", "--device", "demo", "--band", "430:440", "--json", "-n", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        let line = try #require(result.stdoutText.split(separator: "\n").last)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(json["mode"] as? String == "realtime" && json["duty"] as? Double == 1)
        let fft = try #require(json["fft_size"] as? Int), rate = try #require(json["sample_rate_hz"] as? Double)
        let overlap = try #require(json["overlap"] as? Double)
        #expect(overlap >= 0.5 && json["dropped_samples"] as? Int != nil)
        // N + hop − 1 samples
        let shortest = Double(fft + Int(Double(fft) * (1 - overlap)) - 1) / rate
        #expect(abs((json["min_full_burst_s"] as? Double ?? 0) - shortest) < 1e-9, "\(json)")
        let swept = try run(Paths.tscope, ["meter", "--device", "demo", "--band", "430:440", "--json", "-n", "1",
                                           "--mode", "sweep"])
        let sweepLine = try #require(swept.stdoutText.split(separator: "\n").last)
        let sweepJSON = try #require(try JSONSerialization.jsonObject(with: Data(sweepLine.utf8)) as? [String: Any])
        #expect(sweepJSON["mode"] as? String == "sweep" && (sweepJSON["duty"] as? Double ?? 1) < 0.5)
    }

    /// An RTL-SDR watching 400 kHz streams one tuning (offset from the band,
    /// so the carrier at its centre is clear of DC) and reads a generator's
    /// tone at the level the scene gives it: 127·10^((L + 10)/20) int8 units
    /// through the emulated front end's response (DemoSynthesizer).
    @Test func anRTLSDRWatchesANarrowBandInRealTimeAndReadsTheToneItsLevel() throws {
        let result = try run(Paths.tscope, ["meter", "--device", "demo-rtlsdr", "--demo-generator", "433.5:-25",
                                            "--band", "433.3:433.7", "--json", "-n", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        let line = try #require(result.stdoutText.split(separator: "\n").last)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(json["mode"] as? String == "realtime" && json["sample_rate_hz"] as? Double == 2_400_000, "\(json)")
        let amplitude = 127 * pow(10, (-25.0 + 10) / 20)
        let expected = 20 * log10(amplitude / 128) + DemoSynthesizer.frontEndResponseDB(atHz: 433.5e6)
        let power = try #require(json["power_db"] as? Double)
        #expect(abs(power - expected) < 0.3, "RTL-SDR real time: \(power) dB, the scene says \(expected) dB")
        #expect(json["dropped_samples"] as? Int == 0, "\(json)")
    }

    /// "2026-11-26T01:02:03.456000Z" → seconds of the day
    static func seconds(_ stamp: String) -> Double? {
        guard let t = stamp.split(separator: "T").last?.dropLast() else { return nil }
        let parts = t.split(separator: ":").compactMap { Double($0) }
        return parts.count == 3 ? parts[0] * 3600 + parts[1] * 60 + parts[2] : nil
    }
}

import Foundation
import Testing

/// `tscope zerospan` on the emulated HackRF: a transmitter keys bursts of a
/// known width and period (on the radio's own sample clock, `--demo-pulse`,
/// the scene's `PulsedCarrier`) at 305.5 MHz, −20 dBm at the input. Each
/// trace's pulses read the injected width and period to within the RBW
/// filter's rise time (0.68/RBW); the levels are the carrier's power in dB
/// full scale (−20 dBm reads about −10 dBFS at the demo's reference gain).
@Suite struct ZeroSpanCommandTests {
    /// one JSON object per trace
    func traces(_ arguments: [String]) throws -> [[String: Any]] {
        let result = try run(Paths.tscope, ["zerospan", "--device", "demo", "-f", "305.5M"] + arguments + ["--json"],
                             timeoutSeconds: 60)
        #expect(result.status == 0, "\(result.stderr)")
        return try result.stdoutText.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    func check(pulse: String, rbw: Double, sweep: String, width: Double, period: Double, count: Int) throws {
        let rise = 0.6834 / rbw
        let lines = try traces(["--demo-pulse", pulse, "--rbw", String(rbw), "--sweep-time", sweep,
                                "--trigger", "-25", "--pre-trigger", "10", "--count", String(count)])
        #expect(lines.count == count)
        for line in lines {
            let pulses = try #require(line["pulses"] as? [[String: Any]])
            #expect(pulses.count >= 3, "\(pulses.count) pulses")
            for pulse in pulses {
                let measured = try #require(pulse["width_s"] as? Double)
                #expect(abs(measured - width) < rise, "width \(measured) s, injected \(width) s, rise time \(rise) s")
                let peak = try #require(pulse["peak_db"] as? Double)
                #expect(abs(peak - -10) < 1.5, "peak \(peak) dB")
            }
            let measuredPeriod = try #require(line["period_s"] as? Double)
            #expect(abs(measuredPeriod - period) < rise, "period \(measuredPeriod) s, injected \(period) s")
            let duty = try #require(line["duty"] as? Double)
            #expect(abs(duty - width / period) < rise / period)
            // the trigger's crossing sits at 10 % of the trace: the first whole pulse starts just after it
            let first = try #require(pulses.first?["start_s"] as? Double)
            #expect(first >= -rise && first < 2 * rise, "first pulse at \(first) s from the trigger")
            #expect(line["unit"] as? String == "dB")
            #expect((line["levels_db"] as? [Any])?.count == 1000)
        }
        // the traces' times count samples: consecutive triggers a whole number of periods apart
        let times = lines.compactMap { $0["time_s"] as? Double }
        for (a, b) in zip(times, times.dropFirst()) {
            let periods = (b - a) / period
            #expect(abs(periods - periods.rounded()) < 0.01, "traces \(b - a) s apart")
        }
    }

    @Test func burstsOf20MicrosecondsEvery100ReadWithin1MHzRBWsRiseTime() throws {
        try check(pulse: "305.5:-20:20:0.1", rbw: 1e6, sweep: "500us", width: 20e-6, period: 100e-6, count: 3)
    }

    @Test func burstsOf100MicrosecondsEveryMillisecondReadWithin100kHzRBWsRiseTime() throws {
        try check(pulse: "305.5:-20:100:1", rbw: 100e3, sweep: "5ms", width: 100e-6, period: 1e-3, count: 2)
    }

    /// The tinySA's own zero span (`sweep` at span 0: `rbw`, `sweeptime`, `trigger`, `scanraw F F 450`)
    /// on its emulated firmware, with a transmitter keyed 500 µs every 2 ms at 315 MHz, −30 dBm, on the
    /// unit's own clock: the unit triggers at −60 dBm rising and the trace starts there; 5 ms over 450
    /// points is 11.1 µs a point, the 30 kHz RBW's rise time 22.8 µs.
    @Test func aTinySAsOwnZeroSpanReadsBurstsWithinItsRBWsRiseTime() throws {
        let rbw = 30e3, width = 500e-6, period = 2e-3
        let rise = 0.6834 / rbw
        let result = try run(Paths.tscope, ["zerospan", "--device", "demo-tinysa", "-f", "315M", "--rbw", "30k",
                                            "--sweep-time", "5ms", "--trigger", "-60", "--count", "3", "--json",
                                            "--demo-pulse", "315:-30:500:2"], timeoutSeconds: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try result.stdoutText.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(lines.count == 3)
        for line in lines {
            #expect(line["unit"] as? String == "dBm")
            #expect((line["levels_db"] as? [Any])?.count == 450)
            #expect(abs((line["sweep_time_s"] as? Double ?? 0) - 5e-3) < 1e-9)
            let pulses = try #require(line["pulses"] as? [[String: Any]])
            #expect(pulses.count == 3, "\(pulses.count) pulses")
            for pulse in pulses {
                let measured = try #require(pulse["width_s"] as? Double)
                #expect(abs(measured - width) < rise, "width \(measured) s, keyed \(width) s, rise time \(rise) s")
                let peak = try #require(pulse["peak_db"] as? Double)
                #expect(abs(peak - -30) < 2, "peak \(peak) dBm")
            }
            let measuredPeriod = try #require(line["period_s"] as? Double)
            #expect(abs(measuredPeriod - period) < rise, "period \(measuredPeriod) s")
            // the unit's trace starts at its trigger: the first pulse's −3 dB edge within a rise time of it
            let first = try #require(pulses.first?["start_s"] as? Double)
            #expect(first >= 0 && first < rise, "first pulse at \(first) s")
        }
    }

    @Test func badInputIsOneLineAndANonZeroExit() throws {
        let cases: [([String], String)] = [
            (["--rbw", "5M", "--sweep-time", "1ms"], "at most 2.5 MHz"),
            (["--rbw", "1M", "--sweep-time", "10us"], "needs at least 125 µs"),
            (["--rbw", "1M", "--sweep-time", "100s"], "at most 60 s"),
            (["--rbw", "1M", "--sweep-time", "1ms", "--trigger", "-30:up"], "--trigger"),
            (["--rbw", "1M", "--sweep-time", "1ms", "-f", "7000M"], "--frequency 7 GHz"),
            (["--rbw", "1M", "--sweep-time", "10ms", "--device", "demo-tinysa"], "takes 0.2–850 kHz"),
            (["--rbw", "30k", "--sweep-time", "1ms", "--device", "demo-tinysa"], "3 ms to 60 s"),
            (["--rbw", "30k", "--sweep-time", "10ms", "--device", "demo-tinysa", "--trigger", "-60:falling"],
             "rising trigger"),
        ]
        for (arguments, expected) in cases {
            let result = try run(Paths.tscope, ["zerospan", "--device", "demo", "-f", "305.5M", "--count", "1"] + arguments,
                                 timeoutSeconds: 30)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.contains(expected), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("Fatal error"), "\(arguments)")
        }
    }
}

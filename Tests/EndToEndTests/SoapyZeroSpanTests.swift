import Devices
import Foundation
import Testing

/// `zerospan --device soapy:…` without hardware: Debian's SoapySDR modules
/// (SoapyHackRF over libhackrf, SoapyRTLSDR over librtlsdr) drive the
/// project's emulated radios through the libusb stand-in (Tools/fakeusb), as
/// `SoapySDRCommandTests` does for spectra. The emulated radio's scene keys
/// a carrier on and off on its own sample clock, so the bursts' width and
/// period are known; read through SoapySDR they must come out within the
/// RBW filter's rise time (0.68/RBW) of them, and as loud as tscope's native
/// path reads the same radio.
@Suite(.serialized) struct SoapyZeroSpanTests {
    /// one JSON object per trace
    func traces(_ device: String, served: SoapySDRCommandTests.Served, rbw: String, sweep: String,
                count: Int) throws -> [[String: Any]] {
        let result = try run(Paths.tscope, ["zerospan", "--device", device, "-f", "305.5M", "--rbw", rbw,
                                            "--sweep-time", sweep, "--trigger", "-25", "--count", String(count), "--json"],
                             environment: try served.environment, timeoutSeconds: 90)
        #expect(result.status == 0, "\(device): \(result.stderr)")
        // nothing a library printed while the stream started reached stdout
        return try result.stdoutText.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "\(device): \($0)")
        }
    }

    struct Reading {
        var widths: [Double] = []
        var peaks: [Double] = []
        var periods: [Double] = []
        var sweeps: [Double] = []
    }

    func reading(_ lines: [[String: Any]]) throws -> Reading {
        var reading = Reading()
        for line in lines {
            let pulses = try #require(line["pulses"] as? [[String: Any]])
            reading.widths += pulses.compactMap { $0["width_s"] as? Double }
            reading.peaks += pulses.compactMap { $0["peak_db"] as? Double }
            if let period = line["period_s"] as? Double { reading.periods.append(period) }
            if let sweep = line["sweep_time_s"] as? Double { reading.sweeps.append(sweep) }
            #expect((line["levels_db"] as? [Any])?.count == 1000)
            #expect(line["unit"] as? String == "dB")
        }
        return reading
    }

    /// 20 µs bursts every 100 µs at 305.5 MHz, −20 dBm, through SoapyHackRF at 1 MHz RBW over 500 µs
    /// (8 MS/s, as natively): widths and period within the rise time (0.68 µs), levels within 1 dB of the
    /// native path's on the same emulated HackRF.
    @Test func hackRFBurstsReadThroughSoapySDRAsNatively() throws {
        try SoapySDRCommandTests.requireModules()
        let width = 20e-6, period = 100e-6, rbw = 1e6
        let rise = 0.6834 / rbw
        let scene = DemoScene(seed: 4, noiseSigma: 2, pulsedCarriers: [
            .init(frequencyHz: 305.5e6, amplitude: DemoScene.amplitude(levelDBm: -20), widthSeconds: width,
                  periodSeconds: period),
        ])
        let served = try SoapySDRCommandTests.Served("hackrf", scene: scene)
        let soapyLines = try traces("soapy:driver=hackrf", served: served, rbw: "1M", sweep: "500us", count: 3)
        let nativeLines = try traces("hackrf", served: served, rbw: "1M", sweep: "500us", count: 3)
        #expect(soapyLines.count == 3 && nativeLines.count == 3)
        let soapy = try reading(soapyLines), native = try reading(nativeLines)
        #expect(soapy.widths.count >= 9, "\(soapy.widths.count) pulses in 3 traces")
        for measured in soapy.widths {
            #expect(abs(measured - width) < rise, "width \(measured) s, keyed \(width) s, rise time \(rise) s")
        }
        for measured in soapy.periods {
            #expect(abs(measured - period) < rise, "period \(measured) s, keyed \(period) s")
        }
        // a point is 8 samples at 8 MS/s: the sweep time is the asked 500 µs exactly
        #expect(soapy.sweeps.allSatisfy { abs($0 - 500e-6) < 1e-12 }, "\(soapy.sweeps)")
        let soapyPeak = soapy.peaks.reduce(0, +) / Double(max(soapy.peaks.count, 1))
        let nativePeak = native.peaks.reduce(0, +) / Double(max(native.peaks.count, 1))
        #expect(!native.peaks.isEmpty && abs(soapyPeak - nativePeak) <= 1,
                "peaks \(soapyPeak) dB through SoapySDR, \(nativePeak) dB natively")
    }

    /// The RTL-SDR through SoapyRTLSDR streams at the lowest rate it offers that holds the RBW and makes
    /// points of whole samples (1 MS/s for 100 kHz over 5 ms, not the native 2.4 MS/s): 100 µs bursts
    /// every millisecond read within the 100 kHz RBW's rise time (6.8 µs) plus a point (5 µs), timed by
    /// that rate's sample count, over the 5 ms asked.
    @Test func rtlSDRBurstsReadThroughSoapySDRAtItsOwnRate() throws {
        try SoapySDRCommandTests.requireModules()
        let width = 100e-6, period = 1e-3, rbw = 100e3
        let tolerance = 0.6834 / rbw + 5e-6
        let scene = DemoScene(seed: 4, noiseSigma: 2, pulsedCarriers: [
            .init(frequencyHz: 305.5e6, amplitude: DemoScene.amplitude(levelDBm: -20), widthSeconds: width,
                  periodSeconds: period),
        ])
        let served = try SoapySDRCommandTests.Served("rtlsdr", scene: scene)
        let lines = try traces("soapy:driver=rtlsdr", served: served, rbw: "100k", sweep: "5ms", count: 2)
        #expect(lines.count == 2)
        let soapy = try reading(lines)
        #expect(soapy.widths.count >= 6, "\(soapy.widths.count) pulses in 2 traces")
        #expect(soapy.sweeps.count == 2 && soapy.sweeps.allSatisfy { abs($0 - 5e-3) < 1e-9 }, "\(soapy.sweeps)")
        for measured in soapy.widths {
            #expect(abs(measured - width) < tolerance, "width \(measured) s, keyed \(width) s")
        }
        for measured in soapy.periods {
            #expect(abs(measured - period) < tolerance, "period \(measured) s, keyed \(period) s")
        }
    }

    /// `watch --view zerospan` through SoapySDR under tmux: the demo scene's transmitter (50 µs every 2.5 ms
    /// at 1030 MHz) on the emulated HackRF reads its width and period within a point (10 µs) and the RBW's
    /// rise time; the status line names the device and path; the spectrum comes back on 1.
    @Test func theWatchViewReadsBurstsThroughSoapySDR() throws {
        try SoapySDRCommandTests.requireModules()
        let served = try SoapySDRCommandTests.Served("hackrf", scene: DemoScene.standard(seed: 1))
        let tmux = try #require(try TmuxSession(width: 160, height: 48, shellEnvironment: try served.environment),
                                "Tools/install-deps --test installs tmux")
        try tmux.type("\(Paths.tscope.path) watch --device soapy:driver=hackrf --view zerospan --band 1020:1040; "
            + "echo \"STAT\"\"US=$?\"")
        let screen = try #require(tmux.waitFor("period", timeoutSeconds: 30), "\(tmux.screen())")
        #expect(screen.contains("HackRF One via SoapySDR") && screen.contains("zero span at 1.03 GHz")
                && screen.contains("RBW filter on I/Q"), "\(screen)")
        let width = try #require(ZeroSpanViewCommandTests.seconds(after: "width", in: screen), "\(screen)")
        #expect(abs(width - 50e-6) < 11e-6, "width \(width) s: \(screen)")
        let period = try #require(ZeroSpanViewCommandTests.seconds(after: "period", in: screen), "\(screen)")
        #expect(abs(period - 2.5e-3) < 11e-6, "period \(period) s: \(screen)")
        // nothing a library printed landed on the screen
        #expect(!screen.contains("Allocating") && !screen.contains("zero-copy"), "\(screen)")
        try tmux.keys("1")
        #expect(tmux.waitForAbsence(of: "zero span at", timeoutSeconds: 10), "\(tmux.screen())")
        #expect(tmux.waitFor("fps", timeoutSeconds: 20) != nil, "\(tmux.screen())")
        try tmux.keys("q")
        let done = try #require(tmux.waitFor("STATUS=", timeoutSeconds: 15), "\(tmux.screen())")
        #expect(done.contains("STATUS=0"), "\(done)")
    }

    /// Bad input through SoapySDR is one line and a non-zero exit: an RBW wider than an eighth of the
    /// highest rate tscope streams the device at, a frequency it does not tune.
    @Test func limitsAreOneLine() throws {
        try SoapySDRCommandTests.requireModules()
        let served = try SoapySDRCommandTests.Served("hackrf")
        for (arguments, expected) in [(["--rbw", "5M", "-f", "305.5M"], "at most 2.5 MHz"),
                                      (["--rbw", "1M", "-f", "9000M"], "--frequency 9 GHz")] {
            let result = try run(Paths.tscope, ["zerospan", "--device", "soapy:driver=hackrf", "--sweep-time", "1ms",
                                                "--count", "1"] + arguments,
                                 environment: try served.environment, timeoutSeconds: 60)
            #expect(result.status != 0, "\(arguments)")
            let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") }
            #expect(errors.count == 1 && result.stderr.contains(expected), "\(arguments): \(result.stderr)")
        }
    }
}

import Capture
import Devices
import Foundation
import Signals
import Testing
import USBDriver

/// `--device soapy:…` end to end without hardware: Debian's SoapySDR
/// modules for the RTL-SDR (SoapyRTLSDR over librtlsdr) and the HackRF
/// (SoapyHackRF over libhackrf) drive the project's emulated radios through
/// the libusb stand-in (Tools/fakeusb), the same way they would drive the
/// hardware. Each reading is compared with tscope's own native path on the
/// same emulated device: the modules, librtlsdr and libhackrf are code
/// tscope did not write, so the two paths agree only if both talk to the
/// radio as the other does.
@Suite(.serialized) struct SoapySDRCommandTests {
    /// a steady tone 40 dB over the floor, as a signal generator would give
    static let scene = DemoScene(seed: 4, noiseSigma: 2, carriers: [.init(frequencyHz: 433.92e6, amplitude: 30)])

    /// The modules the tests drive (Tools/install-deps --test installs them).
    static func requireModules() throws {
        let directories = ["/usr/lib/x86_64-linux-gnu/SoapySDR/modules0.8", "/usr/lib/aarch64-linux-gnu/SoapySDR/modules0.8",
                           "/usr/local/lib/SoapySDR/modules0.8"]
        let modules = directories.flatMap { (try? FileManager.default.contentsOfDirectory(atPath: $0)) ?? [] }
        try #require(modules.contains("librtlsdrSupport.so") && modules.contains("libHackRFSupport.so"),
                     "soapysdr-module-rtlsdr and soapysdr-module-hackrf (Tools/install-deps --test); found \(modules)")
    }

    /// An emulated radio served to the stand-in for one test.
    final class Served {
        let socketPath: String
        private let keep: AnyObject

        init(_ family: String, scene: DemoScene = SoapySDRCommandTests.scene) throws {
            if family == "hackrf" {
                let served = try ServedHackRF(scene: scene, options: .init(pacing: .realTime))
                socketPath = served.socketPath
                keep = served
            } else {
                let served = try ServedRTLSDR(scene: scene, options: .init(realTime: true))
                socketPath = served.socketPath
                keep = served
            }
        }

        var environment: [String: String] { get throws { try FakeUSB.environment(sockets: [socketPath]) } }
    }

    struct Reading {
        var powerDB: Double
        var peakHz: Double
        var peakDB: Double
        var object: [String: Any]
    }

    /// `meter --json --peaks 1`: the last of three readings.
    func meter(_ device: String, band: String, served: Served, extra: [String] = []) throws -> Reading {
        let result = try run(Paths.tscope, ["meter", "--device", device, "--band", band, "--peaks", "1", "--count", "3",
                                            "--interval", "1", "--json"] + extra,
                             environment: try served.environment, timeoutSeconds: 90)
        #expect(result.status == 0, "\(device): \(result.stderr)")
        let line = try #require(result.stdoutText.split(separator: "\n").last, "\(device): \(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let peak = try #require((object["peaks"] as? [[String: Double]])?.first, "\(line)")
        return Reading(powerDB: try #require(object["power_db"] as? Double), peakHz: try #require(peak["hz"]),
                       peakDB: try #require(peak["db"]), object: object)
    }

    /// The tone read through SoapySDR and natively on the same emulated radio: in real time (a band within the
    /// sample rate) and hopped (a band several times wider), the channel power and the peak's level within 1 dB
    /// and the peak at the tone.
    @Test(arguments: [("rtlsdr", "433.4:434.4", "425:440"), ("hackrf", "433.4:434.4", "400:460")])
    func meterReadsWhatTheNativePathReads(family: String, narrow: String, wide: String) throws {
        try Self.requireModules()
        for (band, mode) in [(narrow, "realtime"), (wide, "sweep")] {
            let served = try Served(family)
            let native = try meter(family, band: band, served: served)
            let soapy = try meter("soapy:driver=\(family)", band: band, served: served)
            // (the native RTL-SDR hops state no dwell timing, so no mode)
            let nativeMode = native.object["mode"] as? String ?? (family == "rtlsdr" ? "sweep" : "")
            #expect(soapy.object["mode"] as? String == mode && nativeMode == mode,
                    "\(family) \(band): \(native.object["mode"] ?? "?") / \(soapy.object["mode"] ?? "?")")
            #expect(abs(soapy.powerDB - native.powerDB) <= 1, "\(family) \(band): \(soapy.powerDB) vs \(native.powerDB) dB")
            // a bin's level of a tone also depends on where the tone falls in it (a Hann window's scalloping loss is
            // up to 1.4 dB) and on the window (the native RTL-SDR hops use Blackman-Harris): the channel power above
            // is the instrument's reading, the peak bin only within 2 dB (and not against the RTL-SDR's Blackman-Harris hops,
            // whose per-bin tone level sits 3.4 dB under a Hann window's here)
            if !(family == "rtlsdr" && mode == "sweep") {
                #expect(abs(soapy.peakDB - native.peakDB) <= 2, "\(family) \(band): peak \(soapy.peakDB) vs \(native.peakDB) dB")
            }
            #expect(abs(soapy.peakHz - 433.92e6) <= 60e3 && abs(native.peakHz - 433.92e6) <= 60e3,
                    "\(family) \(band): peaks at \(soapy.peakHz), \(native.peakHz) Hz")
            // the settings as SoapySDR applied them, in the same JSON
            #expect(soapy.object["soapy_driver"] as? String == family)
            if family == "hackrf" {
                // the native defaults, set explicitly through the module
                #expect(soapy.object["gain_lna_db"] as? Double == 16 && soapy.object["gain_vga_db"] as? Double == 20
                        && soapy.object["gain_amp_db"] as? Double == 0, "\(soapy.object)")
            } else {
                #expect(soapy.object["gain_db"] as? String == "auto", "\(soapy.object)")
            }
        }
    }

    /// Gains by element name reach the radio: the HackRF's LNA at 24 dB through SoapyHackRF (`--gain LNA=24`)
    /// reads what tscope's own `--lna-gain 24` reads, 8 dB over the default 16 dB.
    @Test func namedGainsAreSetOnTheDevice() throws {
        try Self.requireModules()
        let served = try Served("hackrf")
        let standard = try meter("soapy:driver=hackrf", band: "433.4:434.4", served: served)
        let raised = try meter("soapy:driver=hackrf", band: "433.4:434.4", served: served, extra: ["--gain", "LNA=24"])
        let native = try meter("hackrf", band: "433.4:434.4", served: served, extra: ["--lna-gain", "24"])
        #expect(abs(raised.powerDB - standard.powerDB - 8) <= 0.5, "\(raised.powerDB) vs \(standard.powerDB)")
        #expect(abs(raised.powerDB - native.powerDB) <= 0.5, "\(raised.powerDB) vs native \(native.powerDB)")
        #expect(raised.object["gain_lna_db"] as? Double == 24)
    }

    /// The viewer under tmux: the status line names the device and path, and a marker on the loudest signal
    /// reads the tone where, and as loud as, the native path's marker does.
    @Test(arguments: ["rtlsdr", "hackrf"]) func watchShowsTheToneWhereTheNativePathDoes(family: String) throws {
        try Self.requireModules()
        func marker(_ device: String) throws -> (hz: Double, dB: Double, screen: String) {
            let served = try Served(family)
            let tmux = try #require(try TmuxSession(width: 240, height: 48, shellEnvironment: try served.environment),
                                    "Tools/install-deps --test installs tmux")
            try tmux.type("\(Paths.tscope.path) watch --device \(device) --band 433:435; echo \"STAT\"\"US=$?\"")
            let model = family == "rtlsdr" ? "RTL-SDR" : "HackRF One"
            let expected = device.hasPrefix("soapy") ? "\(model) via SoapySDR" : model
            #expect(tmux.waitFor(expected, timeoutSeconds: 30) != nil, "\(tmux.screen())")
            #expect(tmux.waitFor("fps", timeoutSeconds: 20) != nil, "\(tmux.screen())")
            usleep(1_500_000)
            try tmux.keys("m")
            let screen = try #require(tmux.waitFor("▸1  ", timeoutSeconds: 10), "\(tmux.screen())")
            let line = try #require(screen.split(separator: "\n").first { $0.contains("▸1  ") })
            let fields = line[line.range(of: "▸1  ")!.upperBound...].split(separator: " ")
            let hz = try #require(Double(fields.first ?? "")) * 1e6
            let dBText = fields.dropFirst(2).first.map { $0.replacingOccurrences(of: "−", with: "-") } ?? ""
            let dB = try #require(Double(dBText), "\(line)")
            try tmux.keys("q")
            #expect(tmux.waitFor("STATUS=0", timeoutSeconds: 15) != nil, "\(tmux.screen())")
            // nothing a library printed landed on the screen
            #expect(!screen.contains("Allocating") && !screen.contains("zero-copy") && !screen.contains("R82XX"), "\(screen)")
            return (hz, dB, screen)
        }
        let native = try marker(family)
        let soapy = try marker("soapy:driver=\(family)")
        #expect(abs(soapy.hz - 433.92e6) <= 10e3 && abs(native.hz - 433.92e6) <= 10e3, "\(soapy.hz) \(native.hz)")
        // the RTL-SDR's two paths stream at different rates (2.4 and 1.25 MS/s): a tone's bin level differs by the
        // Hann window's scalloping, up to 1.4 dB; the HackRF's stream at the same 8 MS/s
        #expect(abs(soapy.dB - native.dB) <= (family == "rtlsdr" ? 1.5 : 1), "\(soapy.dB) vs \(native.dB) dB")
        let settings = family == "rtlsdr" ? "gain auto, antenna RX" : "LNA 16, AMP 0, VGA 20 dB, antenna TX/RX"
        #expect(soapy.screen.contains(settings), "\(soapy.screen)")
    }

    /// `record` through SoapySDR: the capture holds the tone at its frequency, as loud as a native recording's,
    /// and says which device, path and settings made it.
    @Test(arguments: ["rtlsdr", "hackrf"]) func recordStoresTheToneAndTheSettings(family: String) throws {
        try Self.requireModules()
        func record(_ device: String) throws -> (peakHz: Double, peakDB: Double, binHz: Double, metadata: CaptureMetadata) {
            let served = try Served(family)
            let directory = try Paths.temporaryDirectory("soapy-record")
            defer { try? FileManager.default.removeItem(at: directory) }
            let path = directory.appendingPathComponent("tone.tscope").path
            let result = try run(Paths.tscope, ["record", "--device", device, "--band", "433.4:434.4", "--duration", "2",
                                                "--output", path],
                                 environment: try served.environment, timeoutSeconds: 60)
            #expect(result.status == 0, "\(device): \(result.stderr)")
            let reader = try CaptureStoreReader(path: path)
            #expect(reader.frameCount >= 10, "\(device): \(reader.frameCount) frames")
            var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
            var peaks: [(Double, Double)] = []
            while try reader.next(into: &frame) {
                guard let index = frame.powerDB.indices.max(by: { frame.powerDB[$0] < frame.powerDB[$1] }) else { continue }
                peaks.append((frame.binCenterHz(index), Double(frame.powerDB[index])))
            }
            let last = try #require(peaks.last)
            // the level as the median of the frames' peaks: one frame's peak carries the noise's
            // fluctuation on top of the scalloping the bound allows (a full run once read 1.511 dB
            // apart from the last frames alone)
            let levels = peaks.map(\.1).sorted()
            return (last.0, levels[levels.count / 2], frame.binWidthHz, reader.metadata)
        }
        let native = try record(family)
        let soapy = try record("soapy:driver=\(family)")
        #expect(abs(soapy.peakHz - 433.92e6) <= soapy.binHz && abs(native.peakHz - 433.92e6) <= native.binHz,
                "\(soapy.peakHz) \(native.peakHz) (bins \(soapy.binHz), \(native.binHz) Hz)")
        if family == "hackrf" {
            // both stream 8 MS/s (SoapySDR's rate is chosen as the native path chooses it): the same bins
            #expect(soapy.binHz == native.binHz && abs(soapy.peakDB - native.peakDB) <= 1, "\(soapy.peakDB) vs \(native.peakDB) dB")
        } else {
            // 1.25 and 2.4 MS/s: different bins, a tone's bin level within the Hann window's scalloping (1.4 dB)
            #expect(abs(soapy.peakDB - native.peakDB) <= 1.5, "\(soapy.peakDB) vs \(native.peakDB) dB")
        }
        let model = family == "rtlsdr" ? "RTL-SDR" : "HackRF One"
        #expect(soapy.metadata.device == "\(model) via SoapySDR", "\(soapy.metadata.device ?? "")")
        let gains = soapy.metadata.gains ?? ""
        let expected = family == "rtlsdr" ? ["soapy=\"driver=rtlsdr\"", "gain_db=auto", "antenna=RX"]
            : ["soapy=\"driver=hackrf\"", "gain_lna_db=16", "gain_vga_db=20", "gain_amp_db=0"]
        #expect(expected.allSatisfy { gains.contains($0) }, "\(gains)")
    }

    /// Errors in words: a driver with no module names the Debian package and what SoapySDR found; a gain
    /// element or antenna the device lacks names the ones it has; each one line, exit status non-zero.
    @Test func errorsNameWhatToDo() throws {
        try Self.requireModules()
        let served = try Served("rtlsdr")
        func failure(_ arguments: [String]) throws -> String {
            let result = try run(Paths.tscope, ["meter", "--band", "433.4:434.4", "--count", "1"] + arguments,
                                 environment: try served.environment, timeoutSeconds: 60)
            #expect(result.status != 0, "\(arguments): \(result.stdoutText)")
            let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") }
            #expect(errors.count == 1, "\(arguments): \(result.stderr)")
            return errors.first.map(String.init) ?? result.stderr
        }
        let airspy = try failure(["--device", "soapy:driver=airspy"])
        #expect(airspy.contains("install soapysdr-module-airspy") && airspy.contains("SoapySDR found: driver=rtlsdr"),
                "\(airspy)")
        let element = try failure(["--device", "soapy:driver=rtlsdr", "--gain", "LNA=10"])
        #expect(element.contains("has no gain element LNA; its gains are TUNER"), "\(element)")
        let antenna = try failure(["--device", "soapy:driver=rtlsdr", "--antenna", "TX"])
        #expect(antenna.contains("--antenna TX: the RTL-SDR has RX"), "\(antenna)")
        let hackRFOption = try failure(["--device", "soapy:driver=rtlsdr", "--lna-gain", "16"])
        #expect(hackRFOption.contains("--lna-gain is a HackRF setting") && hackRFOption.contains("--gain, --antenna"),
                "\(hackRFOption)")
    }

    /// A radio lost mid-run goes through the same reconnect supervisor as a native one: headless, it is
    /// retried for --reconnect-timeout, then the run ends with one line and a non-zero status, keeping the
    /// readings it printed.
    @Test func aLostRadioIsRetriedThenGivenUp() throws {
        try Self.requireModules()
        var served: Served? = try Served("rtlsdr")
        let environment = try served!.environment
        let meter = try BackgroundTscope(["meter", "--device", "soapy:driver=rtlsdr", "--band", "433.4:434.4", "--json",
                                          "--interval", "0.5", "--reconnect-timeout", "3"],
                                         stderr: .keep, environment: environment)
        // readings for a few seconds, then the radio is unplugged (its socket closed)
        sleep(6)
        served = nil
        let (status, stderr) = meter.waitForExit()
        let lines = String(decoding: meter.stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: "\n")
        #expect(status != 0)
        let errors = stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") }
        #expect(errors.count == 1, "\(stderr)")
        #expect(lines.count >= 3 && lines.allSatisfy { $0.hasPrefix("{") }, "\(lines)")
    }

    /// A radio tscope drives natively is listed once, natively, though its SoapySDR module finds it too.
    @Test func devicesListsANativeRadioOnce() throws {
        try Self.requireModules()
        let hackRF = try Served("hackrf")
        let rtlSDR = try Served("rtlsdr")
        let result = try run(Paths.tscope, ["devices"],
                             environment: try FakeUSB.environment(sockets: [hackRF.socketPath, rtlSDR.socketPath]))
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n")
        #expect(lines.count == 2 && lines.contains { $0.contains("--device hackrf") }
                && lines.contains { $0.contains("--device rtlsdr") } && !lines.contains { $0.contains("SoapySDR") },
                "\(result.stdoutText)")
    }

    /// `devices --probe` on a SoapySDR device says what SoapySDR reports of it (gain elements with ranges,
    /// rates, antennas, sensors, stream format) and reads frames with the tone, in the radio's own unit (dB).
    @Test func probeSaysWhatSoapySDRReports() throws {
        try Self.requireModules()
        let served = try Served("rtlsdr")
        let result = try run(Paths.tscope, ["devices", "--probe", "--device", "soapy:driver=rtlsdr", "--frames", "2",
                                            "--band", "433:435"], environment: try served.environment, timeoutSeconds: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("gains: TUNER 0–49.6 dB; overall 0–49.6 dB, auto available"), "\(result.stderr)")
        #expect(result.stderr.contains("antennas: RX (default RX)") && result.stderr.contains("stream: CS8 native, read as CS16"),
                "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n")
        #expect(lines.count == 2 && lines.allSatisfy { $0.contains(" dB at 433.9") }, "\(result.stdoutText)")
    }

    /// `calibrate` through SoapySDR: two generator tones of known level make the table for the radio's model and
    /// serial, which then applies on both paths: meter through SoapySDR and natively read the same dBm.
    @Test func calibrationMadeThroughSoapySDRAppliesOnBothPaths() throws {
        try Self.requireModules()
        let scene = DemoScene(seed: 4, noiseSigma: 2, carriers: [.init(frequencyHz: 431e6, amplitude: 30),
                                                                 .init(frequencyHz: 434e6, amplitude: 20),
                                                                 .init(frequencyHz: 437e6, amplitude: 30)])
        let served = try Served("hackrf", scene: scene)
        let directory = try Paths.temporaryDirectory("soapy-calibration")
        defer { try? FileManager.default.removeItem(at: directory) }
        let references = directory.appendingPathComponent("ref.csv")
        try "frequency_hz,level_dbm\n431000000,-40\n434000000,-43.5\n437000000,-40\n".write(to: references, atomically: true, encoding: .utf8)
        var environment = try served.environment
        environment["XDG_CONFIG_HOME"] = directory.path
        let made = try run(Paths.tscope, ["calibrate", "--device", "soapy:driver=hackrf", "--reference", references.path],
                           environment: environment, timeoutSeconds: 90)
        #expect(made.status == 0, "\(made.stderr)")
        #expect((made.stdoutText + made.stderr).contains("at LNA 16, AMP 0, VGA 20 dB, antenna TX/RX (gain 36 dB)"),
                "\(made.stdoutText) \(made.stderr)")
        func channel(_ device: String) throws -> (dBm: Double, unit: String) {
            let result = try run(Paths.tscope, ["meter", "--device", device, "--band", "433.5:434.5", "--count", "2",
                                                "--json"], environment: environment, timeoutSeconds: 60)
            #expect(result.status == 0, "\(device): \(result.stderr)")
            let line = try #require(result.stdoutText.split(separator: "\n").last, "\(result.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return (try #require(object["power_db"] as? Double), object["unit"] as? String ?? "")
        }
        let soapy = try channel("soapy:driver=hackrf")
        let native = try channel("hackrf")
        #expect(soapy.unit == "dBm" && native.unit == "dBm", "\(soapy) \(native)")
        // the middle reference, −43.5 dBm (plus the noise in 1 MHz, far below), between the table's outer points
        #expect(abs(soapy.dBm - native.dBm) <= 0.5 && abs(soapy.dBm - (-43.5)) <= 0.5, "\(soapy.dBm) vs \(native.dBm) dBm")
    }
}

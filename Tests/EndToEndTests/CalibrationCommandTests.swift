import Capture
import Foundation
import Testing

/// `tscope calibrate` and the analyzer settings on the live commands, with
/// the demo HackRF cabled to an emulated signal generator
/// (`--demo-generator`). The emulator has a front-end response that is not
/// flat (−0.8 dB/GHz and a 1 dB ripple with a 700 MHz period) and exact
/// gain steps, so the true level of every tone is the generator's setting:
/// an independent reference our calibration code never sees.
@Suite(.serialized) struct CalibrationCommandTests {
    /// a comb every 50 MHz from 100 to 500 MHz at −30 dBm (what is calibrated with)
    static let comb = stride(from: 100, through: 500, by: 50).map { (mhz: Double($0), dbm: -30.0) }
    /// tones between the comb's teeth at other levels (what is measured afterwards)
    static let tones: [(mhz: Double, dbm: Double)] = [(222, -30), (333, -25), (444, -35)]

    static var generator: String {
        (comb + tones).map { "\(FrequencyText.mhz($0.mhz)):\(Int($0.dbm))" }.joined(separator: ",")
    }

    static func referenceCSV(_ rows: [(mhz: Double, dbm: Double)]) -> String {
        "frequency_hz,level_dbm\n" + rows.map { "\(Int($0.mhz * 1e6)),\($0.dbm)" }.joined(separator: "\n") + "\n"
    }

    struct Bench {
        let directory: URL
        var config: URL { directory.appendingPathComponent("config") }
        var environment: [String: String] { ["XDG_CONFIG_HOME": config.path] }
        var table: URL { config.appendingPathComponent("tscope/calibration/hackrf-one-demo.csv") }

        init() throws { directory = try Paths.temporaryDirectory("calibration") }

        func write(_ name: String, _ text: String) throws -> String {
            let url = directory.appendingPathComponent(name)
            try text.write(to: url, atomically: true, encoding: .utf8)
            return url.path
        }

        func calibrate(_ reference: String, _ extra: [String] = []) throws -> ProcessResult {
            try run(Paths.tscope, ["calibrate", "--device", "demo", "--demo-generator", CalibrationCommandTests.generator,
                                   "--reference", reference, "--sweeps", "8"] + extra,
                    environment: environment, timeoutSeconds: 120)
        }

        /// One `meter --json` reading of 400 kHz around `mhz`.
        func meter(_ mhz: Double, _ extra: [String] = []) throws -> [String: Any] {
            let band = "\(FrequencyText.mhz(mhz - 0.2)):\(FrequencyText.mhz(mhz + 0.2))"
            let result = try run(Paths.tscope, ["meter", "--device", "demo", "--demo-generator",
                                                CalibrationCommandTests.generator, "--band", band, "--count", "2",
                                                "--interval", "0.5", "--json"] + extra,
                                 environment: environment, timeoutSeconds: 60)
            #expect(result.status == 0, "\(result.stderr)")
            let last = try #require(result.stdoutText.split(separator: "\n").last, "no reading: \(result.stderr)")
            return try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        }
    }

    /// The "done when": calibrated with a comb at one gain setting,
    /// tones between the comb's frequencies read within ±1 dB of their true
    /// level in dBm at that setting and at two others; without the
    /// calibration the unit is dB and the readings are far off.
    @Test func aCombCalibrationMakesTheMeterReadDBmBetweenItsTeethAtOtherGains() throws {
        let bench = try Bench()
        defer { try? FileManager.default.removeItem(at: bench.directory) }
        let reference = try bench.write("comb.csv", Self.referenceCSV(Self.comb))
        let made = try bench.calibrate(reference)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdoutText.contains("wrote \(bench.table.path)"), "\(made.stdoutText)")
        let text = try String(contentsOf: bench.table, encoding: .utf8)
        #expect(text.contains("# model: HackRF One") && text.contains("# serial: demo")
                    && text.contains("# gain_db: 36"), "\(text)")
        #expect(text.split(separator: "\n").filter { $0.first?.isNumber == true }.count == Self.comb.count, "\(text)")

        for gains in [["--lna-gain", "16", "--vga-gain", "20"], ["--lna-gain", "24", "--vga-gain", "20"],
                      ["--lna-gain", "16", "--vga-gain", "30", "--amp", "off"]] {
            for tone in Self.tones {
                let reading = try bench.meter(tone.mhz, gains)
                #expect(reading["unit"] as? String == "dBm", "\(gains) \(reading)")
                let power = try #require(reading["power_db"] as? Double)
                #expect(abs(power - tone.dbm) <= 1, "\(tone.mhz) MHz at \(gains): \(power) dBm, true \(tone.dbm) dBm")
                #expect(reading["calibration"] as? String != nil, "\(reading)")
            }
        }
        let raw = try bench.meter(333, ["--calibration", "none"])
        #expect(raw["unit"] as? String == "dB")
        let rawPower = try #require(raw["power_db"] as? Double)
        #expect(abs(rawPower - -25) > 3, "uncalibrated reads \(rawPower) dB: the test would not tell a calibration")
        // outside the calibrated range the unit stays dB
        let outside = try bench.meter(600)
        #expect(outside["unit"] as? String == "dB", "\(outside)")
    }

    /// `--step`: one reference at a time, each prompted for; Enter measures
    /// it. Input ending before the last reference writes no table.
    @Test func stepModePromptsForEachReference() throws {
        let bench = try Bench()
        defer { try? FileManager.default.removeItem(at: bench.directory) }
        let reference = try bench.write("three.csv", Self.referenceCSV([(150, -30), (250, -30), (350, -30)]))
        let output = bench.directory.appendingPathComponent("stepped.csv").path
        let arguments = ["calibrate", "--device", "demo", "--demo-generator", Self.generator, "--reference", reference,
                         "--sweeps", "4", "--step", "--output", output]
        let answered = try runWithInput(arguments, input: "\n\n\n", environment: bench.environment)
        #expect(answered.status == 0, "\(answered.stderr)")
        for mhz in [150, 250, 350] {
            #expect(answered.stderr.contains("set the generator to \(mhz) MHz at -30 dBm, then Enter"), "\(answered.stderr)")
        }
        let table = try String(contentsOfFile: output, encoding: .utf8)
        #expect(table.contains("\n150000000,") && table.contains("\n250000000,") && table.contains("\n350000000,"))
        #expect(!FileManager.default.fileExists(atPath: bench.table.path), "--output wrote elsewhere too")
        try FileManager.default.removeItem(atPath: output)

        let cut = try runWithInput(arguments, input: "\n", environment: bench.environment)
        #expect(cut.status == 1, "\(cut.stderr)")
        #expect(cut.stderr.contains("calibration stopped before \(reference) line 3; no table written"), "\(cut.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// A reference list saved by a spreadsheet (byte-order mark, CRLF) reads as typed.
    @Test func aSpreadsheetsReferenceListIsRead() throws {
        let bench = try Bench()
        defer { try? FileManager.default.removeItem(at: bench.directory) }
        let reference = try bench.write("excel.csv", "\u{FEFF}frequency_hz,level_dbm\r\n200000000,-30\r\n300000000,-30\r\n")
        let made = try bench.calibrate(reference)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdoutText.contains("200 MHz") && made.stdoutText.contains("300 MHz"), "\(made.stdoutText)")
    }

    /// `--calibration FILE` applies a table from anywhere; one made for
    /// another analyzer is refused naming both serials.
    @Test func anExplicitTableIsUsedAndAnotherAnalyzersRefused() throws {
        let bench = try Bench()
        defer { try? FileManager.default.removeItem(at: bench.directory) }
        let table = bench.directory.appendingPathComponent("bench.csv").path
        let made = try bench.calibrate(try bench.write("comb.csv", Self.referenceCSV(Self.comb)), ["--output", table])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(!FileManager.default.fileExists(atPath: bench.table.path))
        // not found by itself (not in the calibration folder): dB; given: dBm
        #expect(try bench.meter(222)["unit"] as? String == "dB")
        let given = try bench.meter(222, ["--calibration", table])
        #expect(given["unit"] as? String == "dBm" && abs((given["power_db"] as? Double ?? 0) - -30) <= 1, "\(given)")
        let other = try String(contentsOfFile: table, encoding: .utf8)
            .replacingOccurrences(of: "# serial: demo", with: "# serial: 0000000000000000457863c8240e2f4f")
        let otherPath = try bench.write("other.csv", other)
        let refused = try run(Paths.tscope, ["meter", "--device", "demo", "--band", "222:223", "--count", "1",
                                             "--calibration", otherPath], environment: bench.environment)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("was made for HackRF One serial 0000000000000000457863c8240e2f4f, not this "
                                        + "HackRF One (serial demo)"), "\(refused.stderr)")
        let broken = try bench.write("broken.csv", "# tscope calibration 1\nfrequency_hz,offset_db,uncertainty_db\n1e8,x,0\n")
        let unreadable = try run(Paths.tscope, ["meter", "--device", "demo", "--band", "222:223", "--count", "1",
                                                "--calibration", broken], environment: bench.environment)
        #expect(unreadable.status == 1 && unreadable.stderr.contains("broken.csv:3: expected frequency_hz"),
                "\(unreadable.stderr)")
    }

    /// The settings appear in `meter --json` as they were set.
    @Test func meterJSONNamesTheSettings() throws {
        let bench = try Bench()
        defer { try? FileManager.default.removeItem(at: bench.directory) }
        let reading = try bench.meter(333, ["--lna-gain", "24", "--vga-gain", "14", "--amp", "on"])
        #expect(reading["lna_gain_db"] as? Int == 24)
        #expect(reading["vga_gain_db"] as? Int == 14)
        #expect(reading["amp"] as? String == "on")
        #expect(reading["antenna_power"] as? String == "off")
        let powered = try bench.meter(333, ["--antenna-power", "on"])
        #expect(powered["antenna_power"] as? String == "on")
        #expect(reading["unit"] as? String == "dB", "no calibration in this bench: \(reading)")
    }

    /// A gain step moves the uncalibrated reading by exactly its size.
    @Test func gainStepsMoveTheReadingByTheirSize() throws {
        let bench = try Bench()
        defer { try? FileManager.default.removeItem(at: bench.directory) }
        let low = try #require(try bench.meter(444, ["--lna-gain", "16"])["power_db"] as? Double)
        let high = try #require(try bench.meter(444, ["--lna-gain", "32"])["power_db"] as? Double)
        let amp = try #require(try bench.meter(444, ["--lna-gain", "16", "--amp", "on"])["power_db"] as? Double)
        #expect(abs(high - low - 16) < 0.3, "LNA 16 → 32 dB moved \(high - low) dB")
        #expect(abs(amp - low - 14) < 0.3, "the amplifier moved \(amp - low) dB")
    }

    /// Bad references end in one line naming the row and write no table.
    @Test func badReferencesAreRefusedNamingTheRow() throws {
        let bench = try Bench()
        defer { try? FileManager.default.removeItem(at: bench.directory) }
        let cases: [(name: String, text: String, expected: String)] = [
            ("header.csv", "freq,level\n100000000,-30\n", "header.csv:1: expected the header 'frequency_hz,level_dbm'"),
            ("number.csv", "frequency_hz,level_dbm\n100000000,-30\n150000000,loud\n",
             "number.csv:3: level_dbm 'loud' is not a number"),
            ("range.csv", "frequency_hz,level_dbm\n100000000,-30\n7000000000,-30\n", "range.csv:3: 7 GHz is outside"),
            ("silent.csv", "frequency_hz,level_dbm\n100000000,-30\n375000000,-30\n",
             "silent.csv:3: no reference found at 375 MHz"),
            ("edge.csv", "frequency_hz,level_dbm\n2000000,-30\n100000000,-30\n",
             "edge.csv:2: 2 MHz is too close to the edge of what the HackRF One tunes"),
            ("empty.csv", "", "empty.csv: empty"),
        ]
        for item in cases {
            let result = try bench.calibrate(try bench.write(item.name, item.text))
            #expect(result.status != 0, "\(item.name) accepted")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && result.stderr.contains(item.expected), "\(item.name): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: bench.table.path), "\(item.name) wrote a table")
        }
    }

    /// Values out of range or for another analyzer are usage errors (exit 64) naming what is allowed.
    @Test func settingsOutOfRangeOrForAnotherAnalyzerAreUsageErrors() throws {
        var cases: [(arguments: [String], expected: String)] = [
            (["meter", "--device", "demo", "--band", "88:108", "--lna-gain", "17"], "0, 8, 16, 24, 32 or 40 dB"),
            (["meter", "--device", "demo", "--band", "88:108", "--vga-gain", "63"], "0–62 dB in 2 dB steps"),
            (["meter", "--device", "demo", "--band", "88:108", "--amp", "maybe"], "on"),
            (["meter", "--device", "demo-rtlsdr", "--band", "88:90", "--gain", "99"], "auto or 0–49.6 dB"),
            (["meter", "--device", "demo", "--band", "88:108", "--gain", "20"], "--gain is an RTL-SDR setting"),
            (["meter", "--device", "demo-tinysa", "--band", "88:108", "--lna-gain", "16"],
             "--lna-gain is a HackRF setting; the tinySA does not take it"),
            (["watch", "--device", "demo-rtlsdr", "--amp", "on"], "--amp is a HackRF setting"),
            (["meter", "--device", "demo-tinysa", "--band", "88:108", "--rbw", "1000"], "auto or 0.2–850 kHz"),
            (["meter", "--device", "demo-tinysa", "--band", "88:108", "--attenuation", "40"], "auto or 0–31 dB"),
            (["record", "--device", "demo", "--band", "88:108", "--rbw", "30"], "--rbw is a tinySA setting"),
            (["sweep", "--device", "demo", "--gain", "20"], "--gain is an RTL-SDR setting"),
            (["meter", "--device", "demo-rtlsdr", "--band", "88:90", "--ppm", "5000"], "between -1000 and 1000 ppm"),
            (["meter", "--device", "demo", "--band", "88:108", "--bias-tee", "on"], "--bias-tee is an RTL-SDR setting"),
            (["sweep", "--device", "demo", "--calibration", "none"], "sweep writes hackrf_sweep's"),
        ]
        #if SensorLink
        cases.append((["serve", "--device", "demo-tinysa", "--listen", "127.0.0.1:0", "--ppm", "10"], "--ppm is an RTL-SDR setting"))
        #endif
        for item in cases {
            let result = try run(Paths.tscope, item.arguments, timeoutSeconds: 30)
            #expect(result.status == 64, "\(item.arguments): exit \(result.status) \(result.stderr)")
            #expect(result.stderr.contains(item.expected), "\(item.arguments): \(result.stderr)")
        }
    }

    /// The tinySA's attenuation raises the noise floor by its size while a
    /// carrier reads the same (the firmware corrects levels for it); a fixed
    /// RBW keeps channel power right; both are named in the JSON.
    @Test func tinySARBWAndAttenuation() throws {
        func reading(_ band: String, _ extra: [String]) throws -> [String: Any] {
            let result = try run(Paths.tscope, ["meter", "--device", "demo-tinysa", "--band", band, "--count", "1",
                                                "--json"] + extra, timeoutSeconds: 60)
            #expect(result.status == 0, "\(result.stderr)")
            let line = try #require(result.stdoutText.split(separator: "\n").last)
            return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        let floor = try #require(try reading("435:436", [])["power_db"] as? Double)
        let attenuated = try reading("435:436", ["--attenuation", "10"])
        let raised = try #require(attenuated["power_db"] as? Double)
        #expect(abs(raised - floor - 10) < 1, "floor \(floor) dBm, with 10 dB attenuation \(raised) dBm")
        #expect(attenuated["attenuation_db"] as? Int == 10)
        // the demo's 433.92 MHz carrier is −30.5 dBm through any filter
        let carrier = try reading("433.5:434.5", ["--rbw", "30", "--attenuation", "10"])
        #expect(abs((carrier["power_db"] as? Double ?? 0) - -30.49) < 0.5, "\(carrier)")
        #expect(carrier["rbw_khz"] as? Int == 30)
    }

    /// An RTL-SDR calibrated at a fixed gain reads dBm at that gain, and dB
    /// on automatic gain, whose value nobody knows: never dBm falsely.
    @Test func anRTLSDRCalibrationNeedsAKnownGain() throws {
        let bench = try Bench()
        defer { try? FileManager.default.removeItem(at: bench.directory) }
        let generator = ["--demo-generator", "90:-30,100:-30,110:-30"]
        let reference = try bench.write("rtl.csv", Self.referenceCSV([(90, -30), (110, -30)]))
        let made = try run(Paths.tscope, ["calibrate", "--device", "demo-rtlsdr", "--gain", "29.7", "--reference", reference,
                                          "--sweeps", "4"] + generator, environment: bench.environment, timeoutSeconds: 120)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdoutText.contains("at gain 29.7 dB (gain 29.7 dB)"), "\(made.stdoutText)")
        func reading(_ extra: [String]) throws -> [String: Any] {
            // off-centre: a hop tuned onto the tone would put it in the DC bin rtl_power's way replaces
            // (README "RTL-SDR"; the same meter centred on it reads 1.5 dB low)
            let result = try run(Paths.tscope, ["meter", "--device", "demo-rtlsdr", "--band", "99.7:100.2", "--count", "1",
                                                "--json"] + generator + extra, environment: bench.environment, timeoutSeconds: 60)
            #expect(result.status == 0, "\(result.stderr)")
            let line = try #require(result.stdoutText.split(separator: "\n").last)
            return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        let fixed = try reading(["--gain", "29.7"])
        #expect(fixed["unit"] as? String == "dBm" && abs((fixed["power_db"] as? Double ?? 0) - -30) <= 1, "\(fixed)")
        let automatic = try reading([])
        #expect(automatic["unit"] as? String == "dB" && automatic["calibration"] is NSNull, "\(automatic)")
    }

    /// An RTL-SDR gain is snapped to the tuner's table and said once.
    @Test func anRTLSDRGainIsSnappedAndSaid() throws {
        let result = try run(Paths.tscope, ["meter", "--device", "demo-rtlsdr", "--band", "88:90", "--gain", "30",
                                            "--count", "1", "--json"], timeoutSeconds: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("--gain 30: the tuner's nearest step is 29.7 dB"), "\(result.stderr)")
        #expect(result.stdoutText.contains("\"gain_db\":29.7,\"ppm\":0"), "\(result.stdoutText)")
    }

    /// A recording stores the settings, the unit and the offsets it applied.
    @Test func aRecordingStoresTheSettingsAndTheCalibrationApplied() throws {
        let bench = try Bench()
        defer { try? FileManager.default.removeItem(at: bench.directory) }
        let made = try bench.calibrate(try bench.write("comb.csv", Self.referenceCSV(Self.comb)))
        #expect(made.status == 0, "\(made.stderr)")
        let capture = bench.directory.appendingPathComponent("cal.tscope").path
        let recorded = try run(Paths.tscope, ["record", "--device", "demo", "--demo-generator", Self.generator,
                                              "--band", "320:340", "--duration", "1", "--lna-gain", "24",
                                              "--output", capture], environment: bench.environment, timeoutSeconds: 60)
        #expect(recorded.status == 0, "\(recorded.stderr)")
        let reader = try CaptureStoreReader(path: capture)
        let gains = try #require(reader.metadata.gains)
        #expect(gains.hasPrefix("lna=24 vga=20 amp=0 unit=dBm calibration="), "\(gains)")
        #expect(gains.contains("gain_correction_db=-8") && gains.contains("offsets_db=100000000:"), "\(gains)")
        // exported, the levels say dBm: the long CSV's and the trace's power column
        let long = try run(Paths.tscope, ["export", "--csv", "-", "--layout", "long", capture])
        #expect(long.status == 0 && long.stdoutText.hasPrefix("time,frequency_hz,power_dbm\n"), "\(long.stderr)")
        let trace = try run(Paths.tscope, ["export", "--csv", "-", "--trace", "max", capture])
        #expect(trace.status == 0 && trace.stdoutText.hasPrefix("frequency_hz,power_dbm\n"), "\(trace.stderr)")
        // the 333 MHz tone (−25 dBm) is the trace's highest bin, read in dBm less the window's coherent gain
        let rows = trace.stdoutText.split(separator: "\n").dropFirst().compactMap { line -> (Double, Double)? in
            let fields = line.split(separator: ",")
            guard fields.count == 2, let hz = Double(fields[0]), let dbm = Double(fields[1]) else { return nil }
            return (hz, dbm)
        }
        let loudest = try #require(rows.max { $0.1 < $1.1 })
        #expect(abs(loudest.0 - 333e6) < 200e3 && loudest.1 > -33 && loudest.1 < -24, "\(loudest)")
    }
}

/// Runs tscope with `input` on its stdin (a user pressing Enter at prompts).
func runWithInput(_ arguments: [String], input: String, environment: [String: String]) throws -> ProcessResult {
    let directory = try Paths.temporaryDirectory("stdin")
    defer { try? FileManager.default.removeItem(at: directory) }
    let stdin = directory.appendingPathComponent("stdin.txt")
    try input.write(to: stdin, atomically: true, encoding: .utf8)
    let script = "exec \"$0\" \"$@\" < \"\(stdin.path)\""
    return try run(URL(fileURLWithPath: "/bin/sh"), ["-c", script, Paths.tscope.path] + arguments,
                   environment: environment, timeoutSeconds: 120)
}

/// MHz as the command line takes them, without a trailing ".0".
enum FrequencyText {
    static func mhz(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.3f", value)
    }
}

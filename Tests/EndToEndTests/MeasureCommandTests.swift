import Foundation
import Testing

/// `tscope measure` end to end on the demo HackRF cabled to the emulated
/// signal generator (`--demo-generator`), calibrated first with a comb of
/// known level, so the truth is each tone's generator setting (the emulator's
/// front end is not flat: the calibration code never sees the truth). Levels
/// are chosen ≥ 12 dB above the noise in a bin (it moves them < 0.3 dB) and
/// ≤ −20 dBm (the emulated ADC clips at −10 dBm and then makes products itself).
@Suite(.serialized) struct MeasureCommandTests {
    struct Bench {
        let directory: URL
        var environment: [String: String] { ["XDG_CONFIG_HOME": directory.appendingPathComponent("config").path] }

        /// calibrated at the default gains with −30 dBm every 20 MHz from 80 to 500 MHz
        init() throws {
            directory = try Paths.temporaryDirectory("measure")
            let comb = Array(stride(from: 80, through: 500, by: 20))
            let reference = directory.appendingPathComponent("reference.csv")
            try ("frequency_hz,level_dbm\n" + comb.map { "\($0 * 1_000_000),-30\n" }.joined())
                .write(to: reference, atomically: true, encoding: .utf8)
            let calibrated = try run(Paths.tscope, ["calibrate", "--device", "demo", "--demo-generator",
                                                    comb.map { "\($0):-30" }.joined(separator: ","),
                                                    "--reference", reference.path, "--sweeps", "8"],
                                     environment: environment, timeoutSeconds: 120)
            #expect(calibrated.status == 0, "\(calibrated.stderr)")
        }

        func measure(_ arguments: [String], generator: String) throws -> [String: Any] {
            let result = try run(Paths.tscope, ["measure"] + arguments + ["--device", "demo", "--demo-generator", generator,
                                                                          "--json"],
                                 environment: environment, timeoutSeconds: 60)
            #expect(result.status == 0, "\(result.stderr)")
            let line = try #require(result.stdoutText.split(separator: "\n").first, "no output: \(result.stderr)")
            return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    static func numbers(_ objects: Any?, _ key: String) -> [Double] {
        ((objects as? [[String: Any]]) ?? []).compactMap { $0[key] as? Double }
    }

    @Test func harmonicsTwoTonesAdjacentChannelsAndNoiseReadTheGeneratorsLevels() throws {
        let bench = try Bench()
        defer { try? FileManager.default.removeItem(at: bench.directory) }

        // harmonics: −20 dBm at 100 MHz, −35, −42, −38 dBm at 200, 300, 400 MHz
        let harmonics = try bench.measure(["harmonics", "--fundamental", "100M", "--count", "4"],
                                          generator: "100:-20,200:-35,300:-42,400:-38")
        #expect((harmonics["harmonics"] as? [[String: Any]])?.allSatisfy { $0["below_noise"] as? Bool == false } == true)
        // without the generator's 400 MHz tone, H4 is under the noise: flagged, no level, the noise's reading as its bound
        let withoutFourth = try bench.measure(["harmonics", "--fundamental", "100M", "--count", "4"],
                                              generator: "100:-20,200:-35,300:-42")
        let fourth = try #require((withoutFourth["harmonics"] as? [[String: Any]])?.last)
        #expect(fourth["below_noise"] as? Bool == true && fourth["level_db"] == nil && fourth["dbc"] == nil, "\(fourth)")
        let bound = try #require(fourth["dbc_less_than"] as? Double, "\(fourth)")
        #expect(bound > -90 && bound < -30, "\(fourth)")
        let thdOfTwo = 10 * log10([-15.0, -22].map { pow(10, $0 / 10) }.reduce(0, +))
        #expect(abs((withoutFourth["thd_db"] as? Double ?? 0) - thdOfTwo) < 0.5, "THD of the harmonics above the noise: \(withoutFourth)")
        #expect(harmonics["unit"] as? String == "dBm" && harmonics["relative"] as? Bool == false)
        let levels = Self.numbers(harmonics["harmonics"], "level_db"), dBc = Self.numbers(harmonics["harmonics"], "dbc")
        let truth = [-20.0, -35, -42, -38]
        #expect(levels.count == 4 && zip(levels, truth).allSatisfy { abs($0 - $1) < 0.5 }, "\(harmonics)")
        #expect(dBc.count == 4 && zip(dBc, truth.map { $0 + 20 }).allSatisfy { abs($0 - $1) < 0.5 }, "\(harmonics)")
        let frequencies = Self.numbers(harmonics["harmonics"], "frequency_hz")
        #expect(zip(frequencies, [100e6, 200e6, 300e6, 400e6]).allSatisfy { abs($0 - $1) < 50e3 }, "\(frequencies)")
        // THD from the truth: harmonics' power over the fundamental's
        let thd = 10 * log10([-15.0, -22, -18].map { pow(10, $0 / 10) }.reduce(0, +))
        #expect(abs((harmonics["thd_db"] as? Double ?? 0) - thd) < 0.5, "\(harmonics)")

        // TOI: two −30 dBm tones 1 MHz apart, products at −62 and −65 dBm
        let toi = try bench.measure(["toi", "--tones", "100M,101M"], generator: "100:-30,101:-30,99:-62,102:-65")
        let productDBc = Self.numbers(toi["products"], "dbc")
        #expect(productDBc.count == 2 && abs(productDBc[0] + 32) < 0.5 && abs(productDBc[1] + 35) < 0.5, "\(toi)")
        // OIP3 = tones' level + (tones − worse product) / 2 = −30 + 32 / 2
        #expect(abs((toi["im3_dbc"] as? Double ?? 0) + 32) < 0.5 && abs((toi["oip3_dbm"] as? Double ?? 0) + 14) < 0.5, "\(toi)")

        // ACPR: −20 dBm in a 200 kHz channel at 100 MHz, −40 dBm at +400 kHz, −45 dBm at −800 kHz
        let acpr = try bench.measure(["acpr", "--channel", "100M:200k", "--offsets", "400k,800k"],
                                     generator: "100:-20,100.4:-40,99.2:-45")
        let main = try #require(acpr["channel"] as? [String: Any])
        #expect(abs((main["power_db"] as? Double ?? 0) + 20) < 0.5, "\(acpr)")
        let offsets = Self.numbers(acpr["adjacent"], "offset_hz"), adjacentDBc = Self.numbers(acpr["adjacent"], "dbc")
        #expect(offsets == [-4e5, 4e5, -8e5, 8e5], "\(acpr)")
        #expect(adjacentDBc.count == 4 && abs(adjacentDBc[1] + 20) < 0.5 && abs(adjacentDBc[2] + 25) < 0.5, "\(acpr)")
        // the empty channels hold noise only: far below the tones
        #expect(adjacentDBc[0] < -30 && adjacentDBc[3] < -30, "\(acpr)")

        // noise: the marker's density at two spans, and against the channel power of 2 MHz of noise over its
        // width, all swept at hackrf_sweep's 20 Msps (the emulated ADC's noise per sample is fixed: its density
        // follows the sample rate, as a real ADC's does)
        var densities: [Double] = []
        for span in ["2M", "20M"] {
            let noise = try bench.measure(["noise", "--frequency", "105M", "--span", span, "--mode", "sweep"], generator: "100:-20")
            densities.append(try #require(noise["level_db_per_hz"] as? Double))
        }
        #expect(abs(densities[0] - densities[1]) < 0.5, "\(densities)")
        let density = densities[0]
        let meter = try run(Paths.tscope, ["meter", "--device", "demo", "--demo-generator", "100:-20", "--band", "104:106",
                                           "--count", "2", "--interval", "0.5", "--json", "--mode", "sweep"],
                            environment: bench.environment, timeoutSeconds: 60)
        let last = try #require(meter.stdoutText.split(separator: "\n").last)
        let channel = try #require((try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])?["power_db"] as? Double)
        #expect(abs(density - (channel - 10 * log10(2e6))) < 0.5, "marker \(density) dBm/Hz, channel \(channel) dBm in 2 MHz")
    }

    @Test func uncalibratedIsRelativeAndBadRequestsAreOneLine() throws {
        let result = try run(Paths.tscope, ["measure", "toi", "--tones", "100M,101M", "--device", "demo", "--demo-generator",
                                            "100:-10,101:-10,99:-55,102:-60", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.contains("\"unit\":\"dB\"") && result.stdoutText.contains("\"relative\":true"))
        #expect(!result.stdoutText.contains("oip3_dbm") && result.stdoutText.contains("\"oip3_db\""))
        for arguments in [["measure", "harmonics"], ["measure", "harmonics", "--fundamental", "100M", "--count", "1"],
                          ["measure", "toi", "--tones", "100M"], ["measure", "toi", "--tones", "100M,100M"],
                          ["measure", "acpr", "--channel", "100M", "--offsets", "2M"],
                          ["measure", "acpr", "--channel", "100M:2M", "--offsets", "1M"],
                          ["measure", "noise"], ["measure", "spurs"],
                          ["measure", "harmonics", "--fundamental", "3G", "--count", "5", "--device", "demo"]] {
            let bad = try run(Paths.tscope, arguments)
            #expect(bad.status != 0, "\(arguments)")
            #expect(bad.stderr.split(separator: "\n").contains { $0.hasPrefix("Error:") || $0.hasPrefix("tscope:") }, "\(arguments): \(bad.stderr)")
        }
    }
}

import Foundation
import Testing

@Suite(.serialized) struct AnalyzerViewsTests {
    @Test func visitsEachViewScrollsBackOpensTheDrawerAndQuitsToACleanShell() throws {
        let tmux = try #require(try TmuxSession(width: 120, height: 36), "Tools/install-deps --test installs tmux")
        try tmux.type("\(Paths.tscope.path) watch --device demo --band 88:108")
        #expect(tmux.waitFor("MHz", timeoutSeconds: 20) != nil, "viewer did not draw:\n\(tmux.screen())")
        #expect(tmux.paneFormat("#{mouse_sgr_flag}") == "1")   // SGR mouse on while the view runs

        try tmux.keys("2")
        #expect(tmux.waitFor("period 30 s │ live", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        let waterfall = try #require(tmux.waitFor("ago", timeoutSeconds: 5), "\(tmux.screen())")
        #expect(waterfall.contains("0s┤"))
        #expect(waterfall.contains("▀") || waterfall.contains("▄"))
        // the shortest period (5 s), then enough history to scroll back into
        try tmux.keys("[", "[", "[")
        #expect(tmux.waitFor("period 5 s │ live", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        usleep(8_000_000)
        try tmux.keys("PageUp")
        #expect(tmux.waitFor("s ago", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        #expect(!tmux.screen().contains("│ live"))
        try tmux.keys("End")
        #expect(tmux.waitFor("│ live", timeoutSeconds: 5) != nil, "\(tmux.screen())")

        try tmux.keys("3")
        let meter = try #require(tmux.waitFor("meter band 88 MHz–108 MHz", timeoutSeconds: 5), "\(tmux.screen())")
        #expect(meter.contains("█"))
        #expect(tmux.waitFor("min -", timeoutSeconds: 5) != nil, "\(tmux.screen())")

        try tmux.keys("d")
        let drawer = try #require(tmux.waitFor("controls · meter", timeoutSeconds: 5), "\(tmux.screen())")
        #expect(drawer.contains("band start MHz"))
        #expect(drawer.contains("88.00"))
        try tmux.keys("Down", "Down")
        for key in ["Enter", "9", "0", "Enter"] { try tmux.keys(key) }
        #expect(tmux.waitFor("meter band 90 MHz–108 MHz", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        try tmux.keys("Escape")
        usleep(300_000)  // past the Escape timeout, so the next key is not read as alt+key

        try tmux.keys("1")
        try tmux.keys("?")
        #expect(tmux.waitFor("this help", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        try tmux.keys("?")
        try tmux.keys("q")
        let deadline = Date().addingTimeInterval(10)
        while tmux.paneFormat("#{alternate_on}") != "0" && Date() < deadline { usleep(100_000) }
        #expect(tmux.paneFormat("#{alternate_on}") == "0")
        #expect(tmux.paneFormat("#{cursor_flag}") == "1")
        #expect(tmux.paneFormat("#{mouse_sgr_flag}") == "0")
        try tmux.type("stty -a | tr ' ' '\\n' | grep -x -e icanon -e echo | tr '\\n' ' '; echo \"EN\"\"D\"")
        let after = try #require(tmux.waitFor("END", timeoutSeconds: 5))
        #expect(after.contains("icanon echo"))
    }

    @Test func startsInTheWaterfallOnATinyTerminalWithoutCrashing() throws {
        let tmux = try #require(try TmuxSession(width: 20, height: 6))
        try tmux.type("\(Paths.tscope.path) watch --device demo --view waterfall; echo \"STAT\"\"US=$?\"")
        #expect(tmux.waitFor("DEMO", timeoutSeconds: 20) != nil, "\(tmux.screen())")
        #expect(tmux.waitFor("▄", timeoutSeconds: 10) != nil || tmux.screen().contains("▀"), "\(tmux.screen())")
        try tmux.keys("q")
        let screen = try #require(tmux.waitFor("STATUS=", timeoutSeconds: 10), "\(tmux.screen())")
        #expect(screen.contains("STATUS=0"))
    }
}

@Suite(.serialized) struct MeterCommandTests {
    @Test func jsonLinesWithUTCTimeBandEdgesAndPower() throws {
        let result = try run(Paths.tscope, ["meter", "--device", "demo", "--band", "88:108", "--interval", "0.3",
                                            "--count", "3", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n")
        #expect(lines.count == 3)
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["start_hz"] as? Int == 88_000_000)
            #expect(object["stop_hz"] as? Int == 108_000_000)
            let power = try #require(object["power_db"] as? Double)
            #expect(power > -80 && power < 20, "\(power)")
            #expect(object["unit"] as? String == "dB")  // the HackRF's levels are relative
            let time = try #require(object["time"] as? String)
            #expect(time.hasSuffix("Z"))
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            let date = try #require(formatter.date(from: time))
            #expect(abs(date.timeIntervalSinceNow) < 60)
        }
    }

    @Test func aCalibratedAnalyzerReadsInDBm() throws {
        // the emulated tinySA's scene puts a carrier at 433.92 MHz on a −105 dBm floor
        let result = try run(Paths.tscope, ["meter", "--device", "demo-tinysa", "--band", "433.8:434", "-n", "1",
                                            "--json", "--interval", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        let line = try #require(result.stdoutText.split(separator: "\n").first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["unit"] as? String == "dBm")
        let power = try #require(object["power_db"] as? Double)
        #expect(power > -100 && power < 0, "\(power)")
    }

    /// Channel power integrates the points by the RBW filter's noise
    /// bandwidth: the demo tinySA's CW carrier (433.92 MHz, 20·log10(12/127)
    /// − 10 = −30.49 dBm) reads its own power, not the sum of the ~10 points
    /// its 10 kHz RBW spreads it over (2.2 kHz steps: that would be +6.8 dB).
    @Test func aSweptAnalyzersChannelPowerIsTheTonesPower() throws {
        let result = try run(Paths.tscope, ["meter", "--device", "demo-tinysa", "--band", "433.5:434.5", "-n", "2",
                                            "--json", "--interval", "0.5"])
        #expect(result.status == 0, "\(result.stderr)")
        let line = try #require(result.stdoutText.split(separator: "\n").last)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let power = try #require(object["power_db"] as? Double)
        let tone = 20 * log10(12.0 / 127) - 10
        #expect(abs(power - tone) < 0.5, "\(power) dBm, the tone is \(tone) dBm")
    }

    @Test func aBandOutsideTheChosenAnalyzerIsOneLine() throws {
        // valid for the option (0–6000 MHz) but not for an RTL-SDR: refused once the device is known
        let result = try run(Paths.tscope, ["meter", "--device", "demo-rtlsdr", "--band", "5000:5100", "-n", "1"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("--band 5000:5100: outside the analyzer's 27–1766 MHz"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    @Test func plainLinesAndBadBands() throws {
        let plain = try run(Paths.tscope, ["meter", "--device", "demo", "--band", "2400:2480", "-n", "1"])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdoutText.contains("2.4 GHz–2.48 GHz"))
        #expect(plain.stdoutText.hasSuffix(" dB\n"))
        // beyond every analyzer, but a converter (--frequency-offset) could bring it in: refused once the device is known
        let beyond = try run(Paths.tscope, ["meter", "--device", "demo", "--band", "7000:7100"])
        #expect(beyond.status == 1)
        #expect(beyond.stderr == "Error: --band 7000:7100: outside the analyzer's 0–6000 MHz\n", "\(beyond.stderr)")
        for (band, message) in [("108:88", "start must be below stop"), ("88", "expected start:stop")] {
            let result = try run(Paths.tscope, ["meter", "--device", "demo", "--band", band])
            #expect(result.status != 0, "\(band)")
            #expect(result.stderr.contains("The value '\(band)' is invalid for '--band <band>': \(message)"), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }
}

/// Colours as the environment asks (no-color.org, COLORTERM), through the
/// real binary in tmux: 24-bit with COLORTERM=truecolor, the 256-colour
/// palette otherwise, none with NO_COLOR.
@Suite(.serialized) struct ColorModeEndToEndTests {
    func colors(_ environment: String) throws -> String {
        let tmux = try #require(try TmuxSession(width: 100, height: 30))
        try tmux.type("env -u COLORTERM -u NO_COLOR \(environment) \(Paths.tscope.path) watch --device demo --view waterfall")
        #expect(tmux.waitFor("period 30 s", timeoutSeconds: 20) != nil, "\(tmux.screen())")
        usleep(1_500_000)
        let screen = tmux.screenWithColors()
        try tmux.keys("q")
        _ = tmux.waitFor("READY$", timeoutSeconds: 10)
        return screen
    }

    @Test func truecolorWhenCOLORTERMSaysSoPaletteOtherwiseNoneWithNOCOLOR() throws {
        let truecolor = try colors("COLORTERM=truecolor")
        #expect(truecolor.contains("38;2;") || truecolor.contains("48;2;"))
        let palette = try colors("")
        #expect(palette.contains("38;5;") || palette.contains("48;5;"))
        #expect(!palette.contains("38;2;"))
        let none = try colors("NO_COLOR=1 COLORTERM=truecolor")
        #expect(!none.contains("38;2;") && !none.contains("38;5;") && !none.contains("48;5;"))
    }
}

/// A real rtl_power capture (Tests/CaptureTests/Fixtures/rtl_power-fm-osaka,
/// provenance there) replayed: the dB window comes from the data, at any
/// terminal size — its noise floor near the bottom, its strongest level near
/// the top.
@Suite(.serialized) struct LevelsFromTheDataTests {
    static let csv = Paths.packageRoot.appendingPathComponent("Tests/CaptureTests/Fixtures/rtl_power-fm-osaka/fm802-3.csv")

    /// The level axis' tick values, top first.
    func ticks(_ screen: String) -> [Double] {
        screen.split(separator: "\n").compactMap { line in
            let scalars = Array(line.unicodeScalars)
            guard scalars.count > 6, scalars[5] == "┤" else { return nil }
            return Double(String(String.UnicodeScalarView(scalars[0..<5])).trimmingCharacters(in: .whitespaces))
        }
    }

    @Test(arguments: [(80, 24), (160, 48)])
    func aReplayOpensWithTheFloorNearTheBottomAndThePeakNearTheTop(width: Int, height: Int) throws {
        let directory = try Paths.temporaryDirectory("levels")
        let capture = directory.appendingPathComponent("fm802.tscope").path
        let converted = try run(Paths.tscope, ["convert", Self.csv.path, capture])
        #expect(converted.status == 0, "\(converted.stderr)")
        // the file's levels: floor (20th percentile) and peak over its first 10 s
        var levels: [Double] = []
        for line in try String(contentsOf: Self.csv, encoding: .utf8).split(separator: "\n").prefix(10) {
            levels += line.split(separator: ",").dropFirst(6).compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        }
        levels.sort()
        let floor = levels[levels.count / 5], peak = levels[levels.count - 1]

        let tmux = try #require(try TmuxSession(width: width, height: height))
        try tmux.type("\(Paths.tscope.path) replay \(capture)")
        #expect(tmux.waitFor("REPLAY", timeoutSeconds: 20) != nil, "\(tmux.screen())")
        usleep(3_000_000)
        let screen = tmux.screen()
        let values = ticks(screen)
        try #require(values.count >= 2, "\(screen)")
        let top = values[0], bottom = values[values.count - 1]
        let step = values[0] - values[1]
        // ticks lie inside the window: the top tick within a step (and the
        // headroom) of the peak, the bottom tick within a step of the floor
        #expect(top >= peak - step - 2 && top <= peak + 0.15 * (top - bottom) + step, "\(values) peak \(peak)")
        #expect(bottom <= floor + step && bottom >= floor - step - 0.2 * (top - bottom), "\(values) floor \(floor)")
        try tmux.keys("q")
    }
}

/// `tscope screenshot`: a saved screen drawn as a PNG (the README's pictures).
@Suite struct ScreenshotCommandTests {
    @Test func aSavedScreenBecomesAPNGAndAMissingOneIsOneLine() throws {
        let directory = try Paths.temporaryDirectory("screenshot")
        let screen = directory.appendingPathComponent("screen.ansi")
        try Data("\u{1B}[38;2;255;214;10mMHz ▀⠿\u{1B}[0m\n│ -20 dB\n".utf8).write(to: screen)
        let png = directory.appendingPathComponent("screen.png").path
        let made = try run(Paths.tscope, ["screenshot", screen.path, png, "--width", "20", "--height", "3"])
        #expect(made.status == 0, "\(made.stderr)")
        let bytes = try #require(FileManager.default.contents(atPath: png))
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        let missing = try run(Paths.tscope, ["screenshot", directory.appendingPathComponent("none").path, png,
                                             "--width", "20", "--height", "3"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("cannot read the screen"))
        #expect(missing.stderr.split(separator: "\n").count == 1, "\(missing.stderr)")
    }
}

import ArgumentParser
import CommandOptions
import Devices
import Foundation
import Remote
import Runs
import Signals
import ViewModels
import Testing

/// The options commands share, parsed in-process as ArgumentParser parses a
/// command line, and the requests they build for the runs library.
struct CommandOptionsTests {
    /// The message ArgumentParser would print for a bad command line.
    static func problem<Options: ParsableArguments>(_ type: Options.Type, _ arguments: [String]) -> String? {
        do {
            _ = try type.parse(arguments)
            return nil
        } catch {
            return type.message(for: error)
        }
    }

    #if SensorLink
    @Test func deviceOptionsBuildTheSelectionWithARemoteSensorAndItsToken() throws {
        let tokenFile = FileManager.default.temporaryDirectory.appendingPathComponent("token-\(getpid())").path
        try "  abc-123  \nsecond line\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: tokenFile) }
        let options = try DeviceOptions.parse(["--remote", "sensor.local:7373", "--token-file", tokenFile,
                                               "--reconnect-timeout", "30"])
        let selection = try options.selection
        let remote = try #require(selection.remote)
        #expect(remote.endpoint == RemoteEndpoint(host: "sensor.local", port: 7373))
        #expect(remote.token == "abc-123")
        #expect(selection.reconnectTimeout == 30)
        #expect(try DeviceOptions.parse(["--device", "demo-tinysa"]).selection.remote == nil)
        #expect(try DeviceOptions.parse(["--device", "demo-tinysa"]).selection.device == .emulated(.tinysa))

        #expect(Self.problem(DeviceOptions.self, ["--remote", "sensor"])?.contains("expected HOST:PORT") == true)
        #expect(Self.problem(DeviceOptions.self, ["--reconnect-timeout", "inf"])?.contains("expected seconds ≥ 0") == true)
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("empty-\(getpid())").path
        try "\n".write(toFile: empty, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: empty) }
        #expect(throws: RemoteError.tokenFile(empty, "is empty (the token is its first line)")) {
            _ = try DeviceOptions.parse(["--remote", "h:1", "--token-file", empty]).selection
        }
    }
    #else
    /// Without the sensor link, --remote parses and then says how to build a tscope that has it.
    @Test func remoteWithoutTheSensorLinkSaysHowToBuildIt() throws {
        let options = try DeviceOptions.parse(["--remote", "sensor.local:7373"])
        do {
            _ = try options.selection
            Issue.record("--remote without the sensor link was taken")
        } catch {
            #expect("\(error)".contains("--remote needs the sensor link") && "\(error)".contains(SensorLink.buildCommand), "\(error)")
        }
        #expect(try DeviceOptions.parse(["--device", "demo-tinysa"]).selection.isRemote == false)
    }
    #endif

    @Test func bandsAndTimesAreParsedOnceWithTheirLimits() throws {
        #expect(try Band(parsing: "88:108").range == FrequencyRange(lowerHz: 88e6, upperHz: 108e6))
        #expect(throws: ValidationError.self) { try Band(parsing: "108:88") }
        #expect(throws: ValidationError.self) { try Band(parsing: "88-108") }
        // beyond every analyzer's own range, but a converter (--frequency-offset) may bring it in: checked at run time
        #expect(try Band(parsing: "10180:10190").range.lowerHz == 10_180e6)
        // behind a converter a default band is the analyzer's own moved; a typed one is real already
        let lnb = FrequencyConversion(offsetHz: 9.75e9)
        #expect(Band(defaultMHz: 88, 108).real(behind: lnb).range == FrequencyRange(lowerHz: 9838e6, upperHz: 9858e6))
        #expect(Band(defaultMHz: 88, 108).real(behind: lnb).text == "9838:9858")
        #expect(try Band(parsing: "88:108").real(behind: lnb).range == FrequencyRange(lowerHz: 88e6, upperHz: 108e6))
        #expect(Band(defaultMHz: 88, 108).real(behind: nil).range == FrequencyRange(lowerHz: 88e6, upperHz: 108e6))
        #expect(throws: ValidationError.self) { try Band(parsing: "-5:10") }
        let tinySA = try #require(FrequencyRange(lowerHz: 100e3, upperHz: 960e6))
        #expect(throws: CommandError.self) { try Band(parsing: "2400:2500").within(tinySA, option: "--band") }
        #expect(try TimeSpan(parsing: "5m").seconds == 300)
        #expect(try TimeSpan(parsing: "90s").seconds == 90)
        #expect(throws: ValidationError.self) { try TimeSpan(parsing: "0") }
        #expect(ReplaySpeed(argument: "max") == ReplaySpeed(factor: nil))
        #expect(ReplaySpeed(argument: "2") == ReplaySpeed(factor: 2))
        #expect(ReplaySpeed(argument: "-1") == nil)
    }

    @Test func sweepOptionsAreHackRFSweepsOrRTLPowers() throws {
        let sweep = try SweepOptions.parse(["-f", "2400:2500", "-f", "5700:5800", "-w", "100000", "-g", "30", "-N", "4"])
        #expect(try sweep.parsedRanges().map(\.startMHz) == [2400, 5700])
        #expect(try sweep.binWidth == 100_000)
        #expect(try sweep.vgaGain == 30)
        #expect(try SweepOptions.parse([]).parsedRanges().map(\.stopMHz) == [6000])
        // checked for a HackRF only (the RTL-SDR reads -f, -w and -g as rtl_power does)
        let hackRFProblems = [["-a", "2"], ["-f", "2400.5:2500"], ["-w", "1M"], ["-N", "0"]].map { arguments in
            do {
                try SweepOptions.parse(arguments).validateForHackRF()
                return ""
            } catch { return "\(error)" }
        }
        #expect(hackRFProblems[0].contains("-a (amp) shall be 0 or 1"))
        #expect(hackRFProblems[1].contains("whole MHz"))
        #expect(hackRFProblems[2].contains("expected a bin width in Hz"))
        #expect(hackRFProblems[3].contains("-N must be at least 1"))

        // the same letters as rtl_power's, with its own
        let rtl = try RTLPowerOptions.parse(["-i", "2s", "-c", "20%", "out.csv"])
        let line = rtl.commandLine(sweep: try SweepOptions.parse(["-f", "88M:108M:125k", "-1"]))
        let settings = try RTLPowerSettings(line)
        #expect(settings.singleShot)
        #expect(line.filename == "out.csv" && line.crop == "20%" && line.interval == "2s")
        #expect(throws: ValidationError.self) { try rtl.rejectForHackRF() }
    }

    @Test func anEventConditionIsOneOfThree() throws {
        #expect(try EventConditionOptions.parse(["--above", "-60"]).isGiven)
        #expect(try !EventConditionOptions.parse([]).isGiven)
        #expect(Self.problem(EventConditionOptions.self, ["--above", "-60", "--mask", "m.csv"])?
            .contains("give one condition") == true)
        #expect(Self.problem(EventConditionOptions.self, ["--over-baseline", "10"])?
            .contains("needs one of --learn DURATION or --baseline FILE") == true)
        let learning = try EventConditionOptions.parse(["--over-baseline", "10", "--learn", "30s", "--for", "2s"])
        #expect(learning.learnSeconds() == 30 && learning.holdSeconds() == 2)
        #expect(try learning.condition() == nil)
    }

    @Test func captureInputOptionsCheckTheirRanges() throws {
        #expect(Self.problem(CaptureInputOptions.self, ["--utc-offset", "30"])?.contains("between -26 and 26") == true)
        #expect(Self.problem(CaptureInputOptions.self, ["--fft-size", "4"])?.contains("8…1048576") == true)
        let options = try CaptureInputOptions.parse(["--rate", "2.4M", "--center", "100.1M", "--utc-offset", "9"])
        #expect(options.readOptions.iq.sampleRateHz == 2.4e6)
        #expect(options.readOptions.iq.centerHz == 100.1e6)
    }
}

@Suite struct ViewAndWaterfallRateOptionTests {
    @Test func waterfallRateIsRowsPerSecondWithinItsLimits() throws {
        #expect(try WaterfallRateOption.parse([]).rowsPerSecond == 2)
        #expect(try WaterfallRateOption.parse(["--waterfall-rate", "30"]).rowsPerSecond == 30)
        #expect(try WaterfallRateOption.parse(["--waterfall-rate", "0.5"]).rowsPerSecond == 0.5)
        for refused in ["31", "0.2", "nan", "-2"] {
            #expect(throws: (any Error).self, "\(refused)") { _ = try WaterfallRateOption.parse(["--waterfall-rate", refused]) }
        }
    }

    @Test func everyViewIsAChoiceByItsTitle() {
        #expect(ViewChoice.allValueStrings == ["plot", "waterfall", "meter", "persistence", "occupancy", "zerospan"])
        #expect(ViewChoice(argument: "persistence")?.mode == .persistence)
        #expect(ViewChoice(argument: "dpx") == nil)
        // --view offers the view list itself: every view, by its title, in Tab order
        #expect(ViewChoice.allValueStrings == AnalyzerMode.allCases.map(\.title))
        for mode in AnalyzerMode.allCases {
            #expect(ViewChoice(argument: mode.title)?.mode == mode)
            #expect(ViewChoice(argument: mode.title.uppercased())?.mode == mode)
            #expect(ViewChoice.listed.contains(mode.title))
        }
    }
}

@Suite struct BandPlanOptionTests {
    @Test func aBuiltInNameOrAFileRepeatedMakeOnePlan() throws {
        #expect(try BandPlanOption.parse([]).plan() == nil)
        let ism = try #require(try BandPlanOption.parse(["--band-plan", "ism"]).plan())
        #expect(ism == BuiltInBandPlans.named("ism"))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("plan-\(getpid()).csv").path
        try "start_hz,stop_hz,label\n118M,137M,Airband\n".write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let both = try #require(try BandPlanOption.parse(["--band-plan", "ISM", "--band-plan", file]).plan())
        #expect(both.allocations.count == ism.allocations.count + 1)
        #expect(both.allocation(at: 120e6)?.label == "Airband" && both.allocation(at: 2.45e9) != nil)
    }

    @Test func aBadFileOrNameIsOneLine() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bad-plan-\(getpid()).csv").path
        try "100M,90M,backwards\n".write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let bad = try #require(CommandOptionsTests.problem(BandPlanOption.self, ["--band-plan", file]))
        #expect(bad.contains("--band-plan \(file):1: stop 90 MHz is not above start 100 MHz"), "\(bad)")
        let unknown = try #require(CommandOptionsTests.problem(BandPlanOption.self, ["--band-plan", "wifi-9g"]))
        #expect(unknown.contains("wifi-9g: no such file, nor a built-in plan (") && unknown.contains("amateur-r1"), "\(unknown)")
    }

    @Test func helpListsTheBuiltInPlansAndExitsCleanly() {
        do {
            _ = try BandPlanOption.parse(["--band-plan", "help"])
            Issue.record("--band-plan help parsed")
        } catch {
            #expect(BandPlanOption.exitCode(for: error) == .success)
            let message = BandPlanOption.message(for: error)
            for entry in BuiltInBandPlans.all { #expect(message.contains(entry.name) && message.contains(entry.plan.source)) }
        }
    }

    @Test func theGridNeedsAPlanAndReachesTheModel() throws {
        #expect(CommandOptionsTests.problem(BandPlanViewOptions.self, ["--band-plan-grid"])?.contains("needs --band-plan") == true)
        let options = try BandPlanViewOptions.parse(["--band-plan", "wifi-2g4", "--band-plan-grid"])
        let model = AnalyzerModel(plot: SpectrumPlotModel(deviceLimits: FrequencyRange(lowerHz: 0, upperHz: 6e9)!,
                                                          visibleBand: FrequencyRange(lowerHz: 2.4e9, upperHz: 2.5e9)!,
                                                          referenceLevelDB: 0, displaySpanDB: 100,
                                                          pixelColumns: 100, pixelRows: 40))
        try options.apply(to: model)
        #expect(model.bandPlan == BuiltInBandPlans.named("wifi-2g4") && model.showsChannelGrid)
        let plain = AnalyzerModel(plot: model.plot)
        try BandPlanViewOptions.parse(["--band-plan", "ism"]).apply(to: plain)
        #expect(plain.bandPlan != nil && !plain.showsChannelGrid)
    }

    @Test func typedFrequenciesAreParsedOnce() {
        #expect(FrequencyArgument(argument: "88.1M")?.hertz == 88.1e6)
        #expect(FrequencyArgument(argument: "100k")?.hertz == 100e3)
        #expect(FrequencyArgument(argument: "2.4GHz")?.hertz == 2.4e9)
        #expect(FrequencyArgument(argument: "abc") == nil)
    }
}

/// `--from` / `--to`: dates and times in UTC, or Unix seconds.
@Suite struct UTCTimeArgumentTests {
    @Test func datesTimesAndUnixSecondsAreRead() {
        #expect(UTCTimeArgument(argument: "2026-11-01")?.seconds == 1_793_491_200)
        #expect(UTCTimeArgument(argument: "2026-11-01T06:00Z")?.seconds == Double(1_793_491_200 + 6 * 3600))
        #expect(UTCTimeArgument(argument: "2026-11-01T06:00:30")?.seconds == Double(1_793_491_200 + 6 * 3600 + 30))
        #expect(UTCTimeArgument(argument: "1542512705.5")?.seconds == 1_542_512_705.5)
        #expect(UTCTimeArgument(argument: "yesterday") == nil)
        #expect(UTCTimeArgument(argument: "2026-13-01") == nil)
    }
}

import Foundation
import Testing

/// `--band-plan` through the real binary: `events --json` and `meter --json`
/// name the allocation of each event, reading and peak; `--band-plan help`
/// lists the built-in plans; `export --png` draws the plan under the picture.
@Suite struct BandPlanCommandTests {
    static let fmStations = Paths.packageRoot
        .appendingPathComponent("Tests/CaptureTests/Fixtures/excerpts/rtl_power-fm_stations-excerpt.csv").path

    static func objects(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func eventsOfARealCaptureNameTheAllocationAtTheirPeak() throws {
        let directory = try Paths.temporaryDirectory("band-plan-events")
        defer { try? FileManager.default.removeItem(at: directory) }
        // the lower half of the capture's 88.05–88.15 MHz in a plan of its own
        let plan = directory.appendingPathComponent("half.csv")
        try "# start_hz,stop_hz,label\n88.0M,88.1M,lower half\n".write(to: plan, atomically: true, encoding: .utf8)
        let arguments = ["events", "--input", osakaCapture, "--band", "88.05:88.15", "--above", "-22.8", "--json",
                         "--utc-offset", "9"]
        let result = try run(Paths.tscope, arguments + ["--band-plan", plan.path])
        #expect(result.status == 0, "\(result.stderr)")
        let events = try Self.objects(result.stdoutText)
        #expect(events.count >= 3)
        for event in events {
            let peak = try #require(event["peak_hz"] as? Double)
            #expect(event["band"] as? String == (peak <= 88.1e6 ? "lower half" : nil), "\(event)")
        }
        // Osaka is in Japan's FM band, inside the CCIR one too: the narrower names it
        let japan = try run(Paths.tscope, arguments + ["--band-plan", "fm-broadcast"])
        #expect(japan.status == 0, "\(japan.stderr)")
        let named = try Self.objects(japan.stdoutText)
        #expect(named.count == events.count && named.allSatisfy { $0["band"] as? String == "FM broadcast (Japan)" })
        // without a plan: the same events, no key
        let plain = try Self.objects(try run(Paths.tscope, arguments).stdoutText)
        #expect(plain.count == events.count && plain.allSatisfy { $0["band"] == nil })
    }

    @Test func meterReadingsAndPeaksNameTheirAllocation() throws {
        let result = try run(Paths.tscope, ["meter", "--input", Self.fmStations, "--band", "88:108", "--speed", "max",
                                            "--interval", "3600", "--peaks", "5", "--json", "--band-plan", "fm-broadcast"])
        #expect(result.status == 0, "\(result.stderr)")
        let reading = try #require(try Self.objects(result.stdoutText).first)
        // 88–108 MHz lies wholly in the CCIR band only (Japan's ends at 95 MHz)
        #expect(reading["band"] as? String == "FM broadcast")
        let peaks = try #require(reading["peaks"] as? [[String: Any]])
        #expect(peaks.count == 5)
        for peak in peaks {
            let hz = try #require(peak["hz"] as? Double)
            #expect(peak["band"] as? String == (hz <= 95e6 ? "FM broadcast (Japan)" : "FM broadcast"), "\(peak)")
        }
    }

    @Test func liveOnTheDemoAnEventIsNamedFromAPlanFile() throws {
        let directory = try Paths.temporaryDirectory("band-plan-live")
        defer { try? FileManager.default.removeItem(at: directory) }
        let plan = directory.appendingPathComponent("ssr.csv")
        try "start_hz,stop_hz,label,colour\r\n1029.5M,1030.5M,\"SSR interrogation, 1030 MHz\",#ffaa00\r\n"
            .write(to: plan, atomically: true, encoding: .utf8)
        let result = try run(Paths.tscope, ["events", "--device", "demo", "--band", "1020:1040", "--above", "-45",
                                            "--json", "--duration", "3", "--band-plan", plan.path])
        #expect(result.status == 0, "\(result.stderr)")
        let events = try Self.objects(result.stdoutText)
        #expect(!events.isEmpty)
        #expect(events.allSatisfy { $0["band"] as? String == "SSR interrogation, 1030 MHz" }, "\(events.prefix(3))")
    }

    @Test func helpListsTheBuiltInPlansOnEveryCommand() throws {
        for command in ["watch", "replay", "export", "events", "meter"] {
            // each with what it must have before the option groups are checked
            let arguments = ["replay": [command, osakaCapture], "export": [command, osakaCapture],
                             "events": [command, "--band", "88:108"]][command] ?? [command]
            let result = try run(Paths.tscope, arguments + ["--band-plan", "help"])
            #expect(result.status == 0, "\(command): \(result.stderr)")
            for name in ["broadcast", "fm-broadcast", "ism", "amateur-r1", "amateur-r2", "amateur-r3", "wifi-2g4",
                         "wifi-5g", "cellular-eu"] {
                #expect(result.stdoutText.contains("  \(name) "), "\(command): \(name)")
            }
            #expect(result.stdoutText.contains("source: ITU Radio Regulations Article 5"))
            let help = try run(Paths.tscope, [command, "--help"])
            #expect(help.stdoutText.contains("--band-plan"), "\(command)")
        }
    }

    @Test func aBadPlanIsOneLineAndExit64() throws {
        let directory = try Paths.temporaryDirectory("band-plan-bad")
        defer { try? FileManager.default.removeItem(at: directory) }
        let plan = directory.appendingPathComponent("bad.csv")
        try "100M,200M,ok\n300M,abc,broken\n".write(to: plan, atomically: true, encoding: .utf8)
        let result = try run(Paths.tscope, ["meter", "--input", Self.fmStations, "--band", "88:108", "--band-plan", plan.path])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--band-plan \(plan.path):2: expected start_hz,stop_hz,label[,colour]"), "\(result.stderr)")
        let unknown = try run(Paths.tscope, ["events", "--input", osakaCapture, "--band", "88.05:88.15", "--above", "-20",
                                             "--band-plan", "marine"])
        #expect(unknown.status == 64 && unknown.stderr.contains("marine: no such file, nor a built-in plan"), "\(unknown.stderr)")
    }

    @Test func theExportedPictureHasTheStripUnderThePlot() throws {
        let directory = try Paths.temporaryDirectory("band-plan-png")
        defer { try? FileManager.default.removeItem(at: directory) }
        let with = directory.appendingPathComponent("with.png").path, without = directory.appendingPathComponent("without.png").path
        let planned = try run(Paths.tscope, ["export", osakaCapture, "--png", with, "--band-plan", "fm-broadcast"])
        let plain = try run(Paths.tscope, ["export", osakaCapture, "--png", without])
        #expect(planned.status == 0 && plain.status == 0, "\(planned.stderr) \(plain.stderr)")
        // "PATH: W×H px, …": the same width, taller by the strip
        func size(_ line: String) -> (Int, Int)? {
            guard let match = line.firstMatch(of: /: (\d+)×(\d+) px/) else { return nil }
            return (Int(match.1)!, Int(match.2)!)
        }
        let a = try #require(size(planned.stderr)), b = try #require(size(plain.stderr))
        #expect(a.0 == b.0 && a.1 > b.1, "\(planned.stderr) \(plain.stderr)")
    }
}

/// `watch --band-plan` under tmux, as a user sees it: the allocations under
/// the frequency axis, b for the grid, a marker naming its allocation, q quits.
@Suite struct BandPlanViewCommandTests {
    @Test(arguments: [(80, 24), (160, 48), (240, 70)])
    func watchDrawsThePlanUnderTheAxis(width: Int, height: Int) throws {
        let tmux = try #require(try TmuxSession(width: width, height: height), "Tools/install-deps --test installs tmux")
        try tmux.type("\(Paths.tscope.path) watch --device demo --band 87:109 --band-plan fm-broadcast; echo \"STAT\"\"US=$?\"")
        let screen = try #require(tmux.waitFor(" FM broadcast ", timeoutSeconds: 20), "\(tmux.screen())")
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // the axis' labels, then Japan's band and CCIR's in rows of their own, then the key help
        let axis = try #require(lines.lastIndex { $0.contains("MHz") && $0.hasPrefix("dB") }, "\(screen)")
        #expect(lines[axis + 1].contains("FM broadcast (Japan)") && lines[axis + 1].contains("┤"), "\(screen)")
        #expect(lines[axis + 2].contains(" FM broadcast ") && lines[axis + 2].contains("├"), "\(screen)")
        #expect(lines[axis + 3].contains("1/2/3/4/5/6 view"), "\(screen)")
        // m: a marker on the highest peak (a station), named by the narrowest allocation holding it
        try tmux.keys("m")
        #expect(tmux.waitFor("in FM broadcast", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        // b: the grid's lines in the plot, b again: gone
        let before = tmux.screen().filter { $0 == "│" }.count
        try tmux.keys("b")
        usleep(500_000)
        #expect(tmux.screen().filter { $0 == "│" }.count > before, "\(tmux.screen())")
        try tmux.keys("q")
        let done = try #require(tmux.waitFor("STATUS=", timeoutSeconds: 10), "\(tmux.screen())")
        #expect(done.contains("STATUS=0"))
    }
}

import Devices
import Foundation
import Testing

/// `tscope events` on a real rtl_power capture (NHK-FM Osaka, 299 sweeps of
/// 1 s) and live on the demo device. The real-file events are found a second
/// time here, by a plain scan of the file's text.
@Suite struct EventsCommandTests {
    static let file = osakaCapture

    /// Per sweep: time (local, as printed) and the values whose frequency
    /// ("Hz low" + k·step, rtl_power's value centres) lies in `band`.
    static func sweeps(band: ClosedRange<Double>) throws -> [(time: String, values: [Float])] {
        try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map { line in
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            let low = Double(fields[2])!, step = Double(fields[4])!
            let values = fields[6...].dropLast().enumerated()
                .filter { band.contains(low + Double($0.offset) * step) }.map { Float($0.element)! }
            return (fields[1], values)
        }
    }

    /// The rule, written plainly: runs of sweeps with a value above `level`;
    /// a run opens after `hold` further sweeps (1 s apart) and closes at the
    /// first sweep whose values are all below level − hysteresis.
    static func expectedEvents(level: Float, holdSweeps: Int, hysteresis: Float,
                               band: ClosedRange<Double> = 88.05e6...88.15e6) throws -> [(start: String, end: String, sweeps: Int)] {
        var events: [(String, String, Int)] = []
        var run: (start: Int, last: Int, count: Int)?
        var open = false
        let all = try sweeps(band: band)
        for (i, sweep) in all.enumerated() {
            let met = sweep.values.contains { $0 > level }
            let released = sweep.values.allSatisfy { $0 < level - hysteresis }
            if met {
                run = run.map { ($0.start, i, $0.count + 1) } ?? (i, i, 1)
                if let r = run, r.last - r.start >= holdSweeps { open = true }
            } else if open {
                if released, let r = run {
                    events.append((all[r.start].time, all[r.last].time, r.count))
                    run = nil
                    open = false
                }
            } else {
                run = nil
            }
        }
        if open, let r = run { events.append((all[r.start].time, all[r.last].time, r.count)) }
        return events
    }

    func reported(_ arguments: [String], band: String = "88.05:88.15") throws -> [[String: Any]] {
        let result = try run(Paths.tscope, ["events", "--input", Self.file, "--band", band, "--json",
                                            "--utc-offset", "9"] + arguments)
        #expect(result.status == 0, "\(result.stderr)")
        return try result.stdoutText.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// 12:31:45 JST printed by rtl_power → "2018-11-18T03:31:45.000000Z"
    static func utc(_ local: String) -> String {
        let parts = local.split(separator: ":").map { Int($0)! }
        return String(format: "2018-11-18T%02d:%02d:%02d.000000Z", parts[0] - 9, parts[1], parts[2])
    }

    @Test(arguments: [(Float(-22.8), 0, Float(0), 88.05, 88.15), (-23.5, 1, 0.5, 88.09, 88.11)])
    func theEventsOfARealCaptureAreTheRunsAPlainScanFinds(level: Float, hold: Int, hysteresis: Float,
                                                           lowMHz: Double, highMHz: Double) throws {
        let expected = try Self.expectedEvents(level: level, holdSweeps: hold, hysteresis: hysteresis,
                                               band: (lowMHz * 1e6)...(highMHz * 1e6))
        #expect(expected.count >= 3, "the scan should find several events at \(level) dB")
        let events = try reported(["--above", "\(level)", "--for", "\(hold)", "--hysteresis", "\(hysteresis)"],
                                  band: "\(lowMHz):\(highMHz)")
        #expect(events.count == expected.count, "\(events.count) reported, \(expected.count) expected")
        for (event, want) in zip(events, expected) {
            #expect(event["start"] as? String == Self.utc(want.start) && event["end"] as? String == Self.utc(want.end),
                    "\(event) vs \(want)")
            #expect(event["sweeps"] as? Int == want.sweeps)
            #expect((event["peak_db"] as? Double ?? -999) > Double(level) && event["unit"] as? String == "dB")
            let start = event["start_hz"] as? Double ?? 0, stop = event["stop_hz"] as? Double ?? 0
            let peak = event["peak_hz"] as? Double ?? 0
            #expect(start < peak && peak < stop && start >= lowMHz * 1e6 - 1000 && stop <= highMHz * 1e6 + 1000, "\(event)")
        }
    }

    @Test func openLinesComeBeforeTheirEventsAndNegativeLevelsParse() throws {
        let result = try run(Paths.tscope, ["events", "--input", Self.file, "--band", "88.05:88.15", "--above", "-22.8",
                                            "--json", "--json-open", "--utc-offset", "9"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n")
        #expect(lines.count == 2 * (try Self.expectedEvents(level: -22.8, holdSweeps: 0, hysteresis: 0).count))
        #expect(lines.first?.hasPrefix("{\"open\":true,") == true && lines[1].hasPrefix("{\"start\":"))
    }

    @Test func badConditionsAreOneLine() throws {
        for (arguments, message) in [([String](), "give one condition"),
                                     (["--above", "-60", "--mask", "m.csv"], "give one condition"),
                                     (["--over-baseline", "6"], "--over-baseline needs one of"),
                                     (["--above", "-60", "--for", "soon"], "The value 'soon' is invalid for '--for <for>'")] {
            let result = try run(Paths.tscope, ["events", "--input", Self.file, "--band", "88.05:88.15"] + arguments)
            #expect(result.status == 64 && result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        let mask = try Paths.temporaryDirectory("events-mask").appendingPathComponent("bad.csv")
        try Data("frequency_hz,level_db\n88000000,-50\n88100000,loud\n".utf8).write(to: mask)
        let result = try run(Paths.tscope, ["events", "--input", Self.file, "--band", "88.05:88.15", "--mask", mask.path])
        #expect(result.status == 1 && result.stderr.contains("bad.csv:3: level 'loud' is not a number"), "\(result.stderr)")
    }

    @Test func liveOnTheDemoThePulsedTransmitterIsReported() throws {
        let result = try run(Paths.tscope, ["events", "--device", "demo", "--band", "1020:1040", "--above", "-45",
                                            "--json", "--duration", "3"])
        #expect(result.status == 0, "\(result.stderr)")
        let events = try result.stdoutText.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(!events.isEmpty, "the 1030 MHz pulses rise ~30 dB over the floor")
        #expect(events.allSatisfy { abs(($0["peak_hz"] as? Double ?? 0) - 1030e6) < 1e6 }, "\(events.prefix(3))")
    }
}

/// A HackRF (emulated, through the libusb stand-in) that goes quiet for 3 s
/// and comes back: `events` says so with a gap line and goes on.
@Suite(.serialized) struct EventsGapTests {
    @Test func aLostAndFoundDeviceIsAGapLineNotTheEndOfTheRun() throws {
        // about 1 s of sweeping 1020–1040 MHz (two steps of 1.23 ms each), then 3 s of nothing
        var options = HackRFEmulator.Options(pacing: .realTime)
        options.pauseAfterBlocks = 800
        options.pauseSeconds = 3
        let served = try ServedHackRF(options: options)
        let result = try run(Paths.tscope, ["events", "--device", "hackrf", "--band", "1020:1040", "--above", "-45",
                                            "--json", "--duration", "9", "--mode", "sweep"],
                             environment: try FakeUSB.environment(sockets: [served.socketPath]), timeoutSeconds: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let objects = try result.stdoutText.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let gaps = objects.filter { $0["gap"] as? Bool == true }
        #expect(gaps.count == 1, "\(result.stdoutText)")
        if let gap = gaps.first {
            #expect((gap["reason"] as? String ?? "").contains("HackRF One"), "\(gap)")
            #expect((gap["from"] as? String ?? "") < (gap["to"] as? String ?? ""), "\(gap)")
        }
        // events before and after the outage
        let index = objects.firstIndex { $0["gap"] as? Bool == true } ?? 0
        #expect(objects[..<index].contains { $0["start"] != nil } && objects[(index + 1)...].contains { $0["start"] != nil },
                "\(result.stdoutText)")
    }
}

/// `events --record DIR --pre --post`: a capture per event with the sweeps
/// around it, read back here.
@Suite struct EventsRecordTests {
    @Test func eachEventIsACaptureWithItsPreAndPostSweeps() throws {
        let directory = try Paths.temporaryDirectory("events-record")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try run(Paths.tscope, ["events", "--input", osakaCapture, "--band", "88.05:88.15", "--above", "-22.8",
                                            "--json", "--utc-offset", "9", "--record", directory.path,
                                            "--pre", "2", "--post", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        let events = try result.stdoutText.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".tscope") }.sorted()
        #expect(files.count == events.count && files.count >= 3, "\(files)")
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for (file, event) in zip(files, events) {
            let start = try #require(iso.date(from: event["start"] as? String ?? "")).timeIntervalSince1970
            let end = try #require(iso.date(from: event["end"] as? String ?? "")).timeIntervalSince1970
            let export = try run(Paths.tscope, ["export", "--csv", "-", "--layout", "long", directory.appendingPathComponent(file).path])
            #expect(export.status == 0, "\(export.stderr)")
            let times = Set(export.stdoutText.split(separator: "\n").dropFirst().map { $0.split(separator: ",")[0] })
                .compactMap { iso.date(from: String($0))?.timeIntervalSince1970 }.sorted()
            // 1 s sweeps: from 2 s before the start to 1 s after the end (the file's first sweep is 03:31:45)
            let first = max(start - 2, 1_542_511_905)
            #expect(times.first == first && times.last == end + 1, "\(file): \(times.first ?? 0)…\(times.last ?? 0) for \(start)…\(end)")
            #expect(times.count == Int(end + 1 - first) + 1, "\(file): one frame per sweep")
            #expect(file.hasPrefix("2018") && file.hasSuffix("MHz.tscope"), "\(file)")
        }
    }
}

/// The same conditions in `watch`: the status line counts the events, the
/// waterfall ticks the rows where they started, and --bell rings.
@Suite(.serialized) struct WatchEventsTests {
    @Test func eventsAreCountedTickedAndRung() throws {
        let tmux = try #require(try TmuxSession(width: 160, height: 40), "Tools/install-deps --test installs tmux")
        try tmux.type("\(Paths.tscope.path) watch --device demo --band 1020:1040 --above -45 --view waterfall --bell"
            + "; echo \"STAT\"\"US=$?\"")
        #expect(tmux.waitFor("│ events ", timeoutSeconds: 20) != nil, "\(tmux.screen())")
        // the pulsed transmitter, in the pane
        #expect(tmux.waitFor(" 1.03 GHz −", timeoutSeconds: 10) != nil, "\(tmux.screen())")
        usleep(1_500_000)
        let later = tmux.screen()
        #expect(later.contains("▶"), "a tick on the waterfall: \(later)")
        // the pane beside the spectrum lists them, newest first
        #expect(later.contains("(newest first)") && later.contains(" GHz −"), "the events pane: \(later)")
        #expect(tmux.paneFormat("#{window_bell_flag}") == "1", "the bell rang")
        try tmux.keys("q")
        #expect(tmux.waitFor("STATUS=0", timeoutSeconds: 10) != nil, "\(tmux.screen())")
    }
}

import Foundation
import Testing

/// `tscope occupancy` (issue 44) on a real rtl_power capture (NHK-FM Osaka,
/// 299 sweeps of 1 s, 128 bins of 781.25 Hz over 88.05–88.15 MHz) and live
/// on the demo device. The expected counts are made a second time here from
/// the file's text: each line is one sample, its first 128 values the bins
/// (rtl_power prints the last one twice), a channel's level the sum of its
/// bins' linear powers.
@Suite struct OccupancyCommandTests {
    static let file = osakaCapture

    /// per line: the printed time ("12:31:45") and the 128 bin values
    static func sweeps() throws -> [(time: String, values: [Float])] {
        try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map { line in
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return (fields[1], fields[6...].dropLast().map { Float($0)! })
        }
    }

    /// the nearest-rank 10th percentile of a sweep's values, as SM.2256's noise riding is described in Docs/occupancy.md
    static func noiseFloor(_ values: [Float]) -> Double {
        let sorted = values.sorted()
        return Double(sorted[Int((0.1 * Double(sorted.count)).rounded(.up)) - 1])
    }

    /// power of bins `range` summed linearly [dB]
    static func channelLevel(_ values: [Float], _ range: Range<Int>) -> Double {
        10 * log10(values[range].reduce(0.0) { $0 + pow(10, Double($1) / 10) })
    }

    func occupancy(_ arguments: [String]) throws -> [[String: Any]] {
        let result = try run(Paths.tscope, ["occupancy", "--input", Self.file, "--json", "--utc-offset", "9"] + arguments)
        #expect(result.status == 0, "\(result.stderr)")
        return try result.stdoutText.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func eachBinAgainstAFixedThresholdIsCountedAsTheFileSays() throws {
        let sweeps = try Self.sweeps()
        let lines = try occupancy(["--threshold", "-26"])
        let channels = lines.filter { $0["start_hz"] != nil }
        try #require(channels.count == 128)
        for (bin, channel) in channels.enumerated() {
            let occupied = sweeps.filter { Double($0.values[bin]) >= -26 }.count
            #expect(channel["samples"] as? Int == 299)
            #expect(channel["occupied"] as? Int == occupied, "bin \(bin)")
            #expect(abs((channel["occupancy"] as? Double ?? -1) - Double(occupied) / 299) < 1e-6)
            // rtl_power's values are bin centres from "Hz low": a bin starts half a step below
            #expect(channel["start_hz"] as? Double == 88_050_000 + (Double(bin) - 0.5) * 781.25)
            #expect(channel["threshold_db"] as? Double == -26)
        }
        let total = sweeps.reduce(0) { sum, sweep in sum + sweep.values.filter { Double($0) >= -26 }.count }
        let band = try #require(lines.last)
        #expect(abs((band["band_occupancy"] as? Double ?? -1) - Double(total) / (299 * 128)) < 1e-6)
        // neither all nor nothing: the threshold cuts through this file's levels
        #expect(total > 299 * 128 / 20 && total < 299 * 128 * 19 / 20, "\(total)")
    }

    @Test func theNoiseRidingThresholdFollowsEachSweepsQuietestTenth() throws {
        let sweeps = try Self.sweeps()
        let lines = try occupancy(["--threshold", "auto+2.5"]).filter { $0["start_hz"] != nil }
        try #require(lines.count == 128)
        var total = 0
        for (bin, channel) in lines.enumerated() {
            let occupied = sweeps.filter { Double($0.values[bin]) >= Self.noiseFloor($0.values) + 2.5 }.count
            total += occupied
            #expect(channel["occupied"] as? Int == occupied, "bin \(bin)")
            #expect(channel["threshold"] as? String == "auto+2.5")
        }
        #expect(total > 0 && total < 299 * 128)
    }

    @Test func channelsIntegrateTheirBinsAndTheAutoThresholdScalesWithTheirWidth() throws {
        let sweeps = try Self.sweeps()
        // 12.5 kHz = 16 bins of 781.25 Hz: eight channels over the 100 kHz
        for (threshold, limit) in [("-14.5", { (_: [Float]) in -14.5 }),
                                   ("auto+1", { (values: [Float]) in Self.noiseFloor(values) + 10 * log10(16) + 1 })] {
            let lines = try occupancy(["--channel-width", "12.5k", "--threshold", threshold]).filter { $0["start_hz"] != nil }
            try #require(lines.count == 8)
            var spread = Set<Int>()
            for (index, channel) in lines.enumerated() {
                let bins = index * 16 ..< index * 16 + 16
                let occupied = sweeps.filter { Self.channelLevel($0.values, bins) >= limit($0.values) }.count
                spread.insert(occupied)
                #expect(channel["occupied"] as? Int == occupied, "\(threshold): channel \(index)")
                #expect(channel["stop_hz"] as? Double == 88_050_000 - 781.25 / 2 + Double(index + 1) * 12_500)
            }
            #expect(spread.count > 1, "\(threshold): every channel alike (\(spread)): the check says little")
        }
    }

    @Test func integrationPeriodsSplitTheSamplesByTheClock() throws {
        let sweeps = try Self.sweeps()
        let lines = try occupancy(["--threshold", "-26", "--interval", "1m"])
        // sweeps per printed minute ("12:31"), in file order
        var minutes: [(String, [[Float]])] = []
        for sweep in sweeps {
            let minute = String(sweep.time.prefix(5))
            if minutes.last?.0 == minute { minutes[minutes.count - 1].1.append(sweep.values) } else { minutes.append((minute, [sweep.values])) }
        }
        let bands = lines.filter { $0["band_occupancy"] != nil }
        try #require(bands.count == minutes.count)
        for ((minute, values), band) in zip(minutes, bands) {
            #expect(band["sweeps"] as? Int == values.count, "\(minute)")
            // 12:31 local (UTC+9) is 03:31 UTC
            let start = try #require(band["period_start"] as? String)
            let hour = Int(minute.prefix(2))! - 9
            #expect(start == String(format: "2018-11-18T%02d:%@:00.000000Z", hour, String(minute.suffix(2))))
            let bin64 = try #require(lines.first { $0["period_start"] as? String == start && $0["start_hz"] as? Double == 88_050_000 + 63.5 * 781.25 })
            #expect(bin64["occupied"] as? Int == values.filter { Double($0[64]) >= -26 }.count)
            #expect(bin64["samples"] as? Int == values.count)
        }
    }

    @Test func csvAndBusyHourTables() throws {
        let result = try run(Paths.tscope, ["occupancy", "--input", Self.file, "--csv", "--threshold", "-26",
                                            "--channel-width", "50k", "--busy-hour", "--utc-offset", "9"])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(rows.first == "period_start,period_end,start_hz,stop_hz,samples,occupied,missing,occupancy,threshold_db,unit")
        #expect(rows.filter { $0.hasPrefix("2018-11-18T03:31:45") }.count == 2)
        let busy = try #require(rows.firstIndex(of: "start_hz,stop_hz,busy_hour_utc,occupancy,samples"))
        // the whole file lies in one hour, 03:00 UTC
        #expect(rows[(busy + 1)...].count == 2)
        #expect(rows[(busy + 1)...].allSatisfy { $0.contains(",03:00,") && $0.hasSuffix(",299") })
    }

    @Test func badOptionsEndInOneLineAndANonZeroStatus() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("occupancy-bad-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let channels = directory.appendingPathComponent("channels.csv").path
        try "start_hz,stop_hz\n88050000,88060000\n88070000,88065000\n".write(toFile: channels, atomically: true, encoding: .utf8)
        let cases: [([String], Int32, String)] = [
            (["--input", Self.file, "--threshold", "loud"], 64, "--threshold"),
            (["--threshold", "-20"], 64, "-f START:STOP"),
            (["--input", Self.file, "--threshold", "-20", "--json", "--csv"], 64, "one of --json and --csv"),
            (["--input", Self.file, "--threshold", "-20", "--channels", channels], 1, "channels.csv:3: expected start_hz below stop_hz"),
            (["--input", Self.file, "--threshold", "-20", "--channel-width", "1M"], 1, "no channel to count"),
            (["--input", directory.appendingPathComponent("none.csv").path, "--threshold", "-20"], 1, "none.csv"),
        ]
        for (arguments, status, message) in cases {
            let result = try run(Paths.tscope, ["occupancy"] + arguments)
            #expect(result.status == status, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("Fatal error"))
        }
    }

    /// The live run counts the sweeps it records: the recording gives the
    /// same lines, with a fixed threshold over integrated channels (which
    /// needs each frame's noise bandwidth stored) and with the auto one.
    @Test func aRecordingGivesTheLiveRunsNumbers() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("occupancy-live-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for threshold in ["-40", "auto"] {
            let capture = directory.appendingPathComponent("live-\(threshold).tscope").path
            let options = ["-f", "88:108", "--channel-width", "200k", "--threshold", threshold, "--json"]
            let live = try run(Paths.tscope, ["occupancy", "--device", "demo", "--duration", "3s", "--record", capture] + options)
            #expect(live.status == 0, "\(live.stderr)")
            #expect(live.stderr.contains("recorded "))
            let replayed = try run(Paths.tscope, ["occupancy", "--input", capture] + options)
            #expect(replayed.status == 0, "\(replayed.stderr)")
            let lines = live.stdoutText.split(separator: "\n")
            #expect(lines.count == 101, "100 channels of 200 kHz and the band line")
            #expect(live.stdoutText == replayed.stdoutText)
            // the demo's FM stations occupy some channels all the time, most never
            let full = lines.filter { $0.contains("\"occupancy\":1,") }.count
            #expect(full >= 5 && full <= 40, "\(full) channels always busy")
        }
    }

    /// `export --occupancy` and `--scan-format` through the binary, on the same real capture.
    @Test func exportDrawsTheHeatMapAndWritesCoordinationScans() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("occupancy-export-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let png = directory.appendingPathComponent("heat.png").path
        let heat = try run(Paths.tscope, ["export", Self.file, "--occupancy", png, "--threshold", "-26", "--slot", "1h"])
        #expect(heat.status == 0, "\(heat.stderr)")
        #expect(heat.stderr.contains("128 channels x 24 slots of 60 min, from 299 sweeps"), "\(heat.stderr)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: png))
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))

        // an rtl_power capture is in dB full scale: refused, unless the user takes them as dBm
        let wwb = directory.appendingPathComponent("scan.csv").path
        let refused = try run(Paths.tscope, ["export", Self.file, "--csv", wwb, "--scan-format", "wwb"])
        #expect(refused.status != 0 && refused.stderr.contains("tscope calibrate"), "\(refused.stderr)")
        let scan = try run(Paths.tscope, ["export", Self.file, "--csv", wwb, "--scan-format", "wwb", "--assume-dbm"])
        #expect(scan.status == 0, "\(scan.stderr)")
        #expect(scan.stderr.contains("5 points 25 kHz apart") && scan.stderr.contains("--assume-dbm"), "\(scan.stderr)")
        // 128 bins of 781.25 Hz centred from 88.05 MHz merge onto 88.050 … 88.150 MHz, each the loudest of its bins
        let rows = try String(contentsOfFile: wwb, encoding: .utf8).split(separator: "\r\n")
        let sweeps = try Self.sweeps()
        #expect(rows.count == 5)
        let nearest = (0..<128).filter { abs(88_050_000 + Double($0) * 781.25 - 88_050_000) <= 12_500 }
        let loudest = nearest.map { bin in sweeps.map { $0.values[bin] }.max()! }.max()!
        #expect(rows.first == "88.0500,\(String(format: "%.1f", loudest))")

        for (arguments, message) in [(["--occupancy", png], "--occupancy needs --threshold"),
                                     (["--png", png, "--csv", wwb], "give one of --png"),
                                     (["--png", png, "--scan-format", "wsm"], "--scan-format writes a CSV"),
                                     (["--csv", wwb, "--scan-format", "ias"], "--scan-format")] {
            let result = try run(Paths.tscope, ["export", Self.file] + arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }
}

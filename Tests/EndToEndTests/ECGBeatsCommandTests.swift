import ECG
import Foundation
import Testing

/// `ecg monitor --beats` / `--rr` and `ecg score --beats --rhythm`: the rhythm engine from beat times alone,
/// on Long-Term AF Database records kept out of the AF model's training (Tests/ECGTests/Fixtures/README.md),
/// against their reviewed rhythm annotations.
@Suite struct ECGBeatsCommandTests {
    static let fixtures = Paths.packageRoot.appendingPathComponent("Tests/ECGTests/Fixtures")
    static func record(_ name: String) -> String { fixtures.appendingPathComponent("ltafdb-beats/\(name)").path }

    /// Per-second lines and the closing summary of `ecg monitor REC --beats qrs --json --speed max`.
    static func monitor(_ arguments: [String]) throws -> (seconds: [[String: Any]], events: [[String: Any]], summary: [String: Any]) {
        let result = try run(Paths.tscope, ["ecg", "monitor"] + arguments + ["--json", "--speed", "max"], timeoutSeconds: 300)
        #expect(result.status == 0, "\(result.stderr)")
        let objects = try result.stdoutText.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "not JSON: \($0)")
        }
        let summary = try #require(objects.last { $0["summary"] != nil })
        return (objects.filter { $0["time"] != nil }, objects.filter { $0["event"] != nil }, summary)
    }

    /// The reference's AF intervals [s] from the record's .atr rhythm changes.
    static func referenceAF(_ name: String, duration: Double) throws -> [ClosedRange<Double>] {
        let data = try Data(contentsOf: URL(fileURLWithPath: record(name) + ".atr"))
        let annotations = try [UInt8](data).withUnsafeBytes { try WFDBAnnotationReader.read($0, file: name) }
        return AFRhythmScore.referenceAF(annotations, sampleRate: 128, end: duration)
    }

    /// Second `t`'s line says what the rhythm was over (t − 1, t]: scored at its middle.
    static func score(_ seconds: [[String: Any]], against reference: [ClosedRange<Double>]) -> AFRhythmScore {
        AFRhythmScore(referenceAF: reference, detectedAF: seconds.map { $0["rhythm"] as? String == "af" }, episodes: [])
    }

    /// Record 13: 19.9 h, 4.9 h of AF in paroxysms, from the automatic detector's beats.
    @Test func paroxysmalAFFromAHolterBeatList() throws {
        let (seconds, events, summary) = try Self.monitor([Self.record("13"), "--beats", "qrs"])
        #expect(seconds.count == 71_760)   // 9,185,280 samples at 128 Hz
        #expect(seconds.map { $0["time"] as? Int } == Array(1...71_760))
        let reference = try Self.referenceAF("13", duration: 71_760)
        let score = Self.score(seconds, against: reference)
        #expect(score.sensitivity >= 0.95 && score.specificity >= 0.99, "Se \(score.sensitivity) Sp \(score.specificity)")
        let referenceBurden = reference.reduce(0) { $0 + $1.upperBound - $1.lowerBound } / 71_760
        let burden = try #require(summary["af_burden"] as? Double)
        #expect(abs(burden - referenceBurden) <= 0.05, "burden \(burden), reference \(referenceBurden)")
        // episodes, not a storm: few AF events, each overlapping reference AF, the first dated near the first onset
        let af = events.filter { $0["event"] as? String == "af" }
        #expect(!af.isEmpty && af.count <= 4, "\(af)")
        for event in af {
            let start = try #require(event["start"] as? Double), end = try #require(event["end"] as? Double)
            #expect(reference.contains { $0.overlaps(start...end) }, "\(event)")
        }
        for event in af {
            let mean = try #require(event["mean_heart_rate"] as? Double), highest = try #require(event["max_heart_rate"] as? Double)
            #expect((40...200).contains(mean) && highest >= mean, "\(event)")
        }
        // AF burden per hour of the recording, as a Holter report lists it
        let hourly = try #require(summary["af_burden_by_hour"] as? [Any])
        #expect(hourly.count == 20)   // 19.9 h
        #expect(hourly.allSatisfy { ($0 as? Double).map { (0...1).contains($0) } ?? ($0 is NSNull) })
        let firstOnset = try #require(reference.first?.lowerBound)
        #expect(abs((af.first?["start"] as? Double ?? 0) - firstOnset) <= 120, "\(af.first ?? [:]) against onset \(firstOnset)")
        let episodes = try #require(summary["episodes"] as? [String: Int])
        #expect(episodes["af"] == af.count)
    }

    /// Record 30: 6.1 h without AF, 1,730 atrial premature beats among them: no AF second, no AF episode.
    @Test func prematureBeatsAreNotAF() throws {
        let (seconds, events, summary) = try Self.monitor([Self.record("30"), "--beats", "qrs"])
        #expect(seconds.count == 22_080)
        let afSeconds = seconds.filter { $0["rhythm"] as? String == "af" }.count
        #expect(afSeconds <= 30, "\(afSeconds) s called AF")
        #expect(events.filter { $0["event"] as? String == "af" }.isEmpty)
        #expect((summary["af_burden"] as? Double ?? 1) <= 0.002)
    }

    /// Record 62: 24.8 h of AF whose automatic beats miss half of the reviewed ones. Where the list has
    /// lost beats (fewer than 60 % of the reference's in the last 10 s) the monitor says "unreadable",
    /// not AF and not a rhythm.
    @Test func droppedBeatsReadUnreadableNeverAF() throws {
        let (seconds, _, _) = try Self.monitor([Self.record("62"), "--beats", "qrs"])
        let reviewed = try BeatListFile.readAnnotations(record: Self.record("62"), annotator: "atr").samples
        let automatic = try BeatListFile.readAnnotations(record: Self.record("62"), annotator: "qrs").samples
        func counts(_ beats: [Int]) -> [Int] {   // beats in (t − 10 s, t] per second t
            var perSecond = [Int](repeating: 0, count: seconds.count + 1)
            for beat in beats { let second = (beat + 127) / 128; if second <= seconds.count { perSecond[second] += 1 } }
            var running = 0, window: [Int] = []
            for index in perSecond.indices {
                running += perSecond[index]
                if index >= 10 { running -= perSecond[index - 10] }
                window.append(running)
            }
            return window
        }
        let reviewedCounts = counts(reviewed), automaticCounts = counts(automatic)
        var lossy = 0, lossyAF = 0, lossyUnreadable = 0
        for (index, line) in seconds.enumerated() where reviewedCounts[index + 1] >= 8
            && Double(automaticCounts[index + 1]) < 0.6 * Double(reviewedCounts[index + 1]) {
            lossy += 1
            if line["rhythm"] as? String == "af" { lossyAF += 1 }
            if line["rhythm"] as? String == "unreadable" { lossyUnreadable += 1 }
        }
        #expect(lossy > 10_000, "the record loses beats for hours")
        #expect(Double(lossyAF) <= 0.05 * Double(lossy), "\(lossyAF) of \(lossy) lossy seconds called AF")
        #expect(Double(lossyUnreadable) >= 0.8 * Double(lossy), "\(lossyUnreadable) of \(lossy) lossy seconds unreadable")
        #expect(seconds.contains { $0["status"] as? String == "unreadable" })
    }

    /// `ecg score --beats qrs --rhythm` scores the same engine as the monitor: the same AF seconds.
    @Test func scoreAgreesWithTheMonitor() throws {
        let result = try run(Paths.tscope, ["ecg", "score", Self.record("13"), "--beats", "qrs", "--rhythm"], timeoutSeconds: 300)
        #expect(result.status == 0, "\(result.stderr)")
        let (seconds, _, _) = try Self.monitor([Self.record("13"), "--beats", "qrs"])
        let score = Self.score(seconds, against: try Self.referenceAF("13", duration: 71_760))
        #expect(result.stdoutText.contains("(TP \(score.truePositiveSeconds) FN \(score.falseNegativeSeconds) FP \(score.falsePositiveSeconds) TN \(score.trueNegativeSeconds))"),
                "\(result.stdoutText)")
        // the automatic beats against the reviewed ones
        #expect(result.stdoutText.contains("QRS  Se 99.99 %  +P 99.99 %  TP 68959  FN 10  FP 9"), "\(result.stdoutText)")
    }

    /// A Kubios HRV report's RR column: a line per second, a resting sinus rhythm.
    @Test func rrIntervalsFromAKubiosReport() throws {
        let path = Self.fixtures.appendingPathComponent("rr-lists/kubios-hrv-report.txt").path
        let (seconds, events, summary) = try Self.monitor(["--rr", path])
        #expect(seconds.count == 216)   // 300 intervals, 216.2 s
        for line in seconds.dropFirst(40) {
            let rate = try #require(line["heart_rate"] as? Double, "\(line)")
            #expect((60...110).contains(rate), "\(line)")
            #expect(line["rhythm"] as? String != "af", "\(line)")
        }
        #expect(events.isEmpty, "\(events)")
        #expect((summary["beats"] as? [String: Int])?["N"] == 299)
    }

    /// `ecg classify --beats qrs DIR`: a Holter summary per record of the directory, from its beats alone.
    @Test func classifyJudgesEachRecordFromItsBeats() throws {
        let result = try run(Paths.tscope, ["ecg", "classify", "--beats", "qrs", "--json",
                                            Self.fixtures.appendingPathComponent("ltafdb-beats").path], timeoutSeconds: 300)
        #expect(result.status == 0, "\(result.stderr)")
        let objects = try result.stdoutText.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "not JSON: \($0)")
        }
        #expect(objects.map { $0["record"] as? String } == ["13", "30", "62"])
        // 13 and 62 have AF by their reference, 30 has none
        #expect(objects.map { $0["verdict"] as? String == "af" } == [true, false, true], "\(objects)")
        let burden13 = try #require(objects[0]["af_burden"] as? Double)
        let reference13 = try Self.referenceAF("13", duration: 71_760).reduce(0) { $0 + $1.upperBound - $1.lowerBound } / 71_760
        #expect(abs(burden13 - reference13) <= 0.05)
        let episodes13 = try #require(objects[0]["af_episodes"] as? [[String: Double]])
        #expect((1...4).contains(episodes13.count), "\(episodes13)")
        #expect((objects[2]["unreadable_s"] as? Int ?? 0) > 30_000, "62 lost half its beats")
        #expect((objects[1]["af_episodes"] as? [Any])?.isEmpty == true)
    }

    /// PhysioNet's text tools' output as it is shared: `ann2rr -i s -v -V` beats scored with `--rr` against
    /// `rdann` rhythm notes of the same record (AFDB 04015, first 15 min; AFDB is the model's development
    /// data, so this checks the reading and the clock, not the model's accuracy on new patients).
    @Test func ann2rrBeatsScoredAgainstRdannRhythm() throws {
        let directory = Self.fixtures.appendingPathComponent("afdb-text")
        let result = try run(Paths.tscope, ["ecg", "score", "--rr", directory.appendingPathComponent("qrs04015-15min.txt").path,
                                            "--reference", directory.appendingPathComponent("atr04015.txt").path, "--rhythm"],
                             timeoutSeconds: 300)
        #expect(result.status == 0, "\(result.stderr)")
        // the reference's AF from the dump's sample numbers (250 Hz), read here apart: (AFIB … (N pairs
        // up to the excerpt's end, the last beat at sample 224,944
        let af = [(102_584, 119_604), (121_773, 122_194), (133_348, 166_857)].reduce(0) { $0 + $1.1 - $1.0 }
        let burden = Double(af) / (224_945.0)
        let text = result.stdoutText
        #expect(text.contains("1465 beats, 0.000–899.780 s against"), "\(text)")
        #expect(text.contains(String(format: "reference %.4f", burden)), "\(text)")
        #expect(text.contains("QRS  not scored: the reference holds no beats"), "\(text)")
        let seconds = try #require(text.split(separator: "\n").first { $0.hasPrefix("AF seconds") })
        let sensitivity = try #require(Double(seconds.split(separator: " ")[3]))
        #expect(sensitivity >= 80, "\(seconds)")
        let usage = try run(Paths.tscope, ["ecg", "score", "--rr", directory.appendingPathComponent("qrs04015-15min.txt").path])
        #expect(usage.status == 64 && usage.stderr.contains("--rr: an RR list has no record beside it"), "\(usage.stderr)")
    }

    @Test func badBeatInputIsOneLineAndExit1() throws {
        let directory = try Paths.temporaryDirectory("ecg-beats-bad")
        defer { try? FileManager.default.removeItem(at: directory) }
        let bad = directory.appendingPathComponent("bad.txt").path
        try "Phone timestamp;RR-interval [ms]\r\nt;812\r\nt;8x2\r\nt;790\r\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let result = try run(Paths.tscope, ["ecg", "monitor", "--rr", bad, "--json", "--speed", "max"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty, "nothing partial: \(result.stdoutText)")
        #expect(result.stderr.split(separator: "\n") == ["tscope: \(bad):3: expected an RR interval in column 2, found \"8x2\""],
                "\(result.stderr)")
        let missing = try run(Paths.tscope, ["ecg", "monitor", Self.record("30"), "--beats", "nope", "--speed", "max"])
        #expect(missing.status == 1 && missing.stderr.contains("30.nope: no such annotation file"), "\(missing.stderr)")
        let usage = try run(Paths.tscope, ["ecg", "monitor", "--beats", "qrs"])
        #expect(usage.status == 64 && usage.stderr.contains("--beats ANN reads the record's annotation file"), "\(usage.stderr)")
    }
}

import Foundation
import Testing

/// `ecg watch` and `ecg score` on records with signals at several rates (WFDB
/// `212x4`) and on EDF/EDF+ files; `ecg convert` between the formats.
@Suite(.serialized) struct ECGRecordFileTests {
    /// real records and files (Tests/ECGTests/Fixtures, provenance in its README)
    private static let fixtures = Paths.packageRoot.appendingPathComponent("Tests/ECGTests/Fixtures")
    private static let mimic = fixtures.appendingPathComponent("mimicdb-03700181/03700181").path

    @Test func scoreUsesTheFiveHundredHertzLeadAndEachAnnotatorsTimeBase() throws {
        // gqrsh counts at 500 Hz (its note), gqrsl in 125 Hz frames, sqrs at 250 Hz (its note)
        for annotator in ["gqrsh", "gqrsl", "sqrs"] {
            let result = try run(Paths.tscope, ["ecg", "score", Self.mimic, "--annotator", annotator])
            #expect(result.status == 0, "\(annotator): \(result.stderr)")
            #expect(result.stdoutText.contains("lead 0 (MCL1), 300000 samples at 500.0 Hz"), "\(result.stdoutText)")
            let sensitivity = Self.figure("Se", result.stdoutText)
            #expect(sensitivity.map { $0 > 99 } ?? false, "\(annotator): \(result.stdoutText)")
            // the signals at 125 Hz are named, not dropped silently
            #expect(result.stderr.contains("ABP (125 Hz), RESP (125 Hz)"), "\(result.stderr)")
        }
        let byLabel = try run(Paths.tscope, ["ecg", "score", Self.mimic, "--annotator", "gqrsh", "--lead", "MCL1"])
        #expect(byLabel.stdoutText.contains("lead 0 (MCL1)"), "\(byLabel.stdoutText)")
        // the 125 Hz signals score at 125 Hz against the frame-clock annotations, numbered as in the file
        let resp = try run(Paths.tscope, ["ecg", "score", Self.mimic, "--annotator", "gqrsl", "--lead", "RESP"])
        #expect(resp.stdoutText.contains("lead 2 (RESP), 75000 samples at 125.0 Hz"), "\(resp.stdoutText)")
        #expect(resp.stderr.contains("not scored: MCL1 (500 Hz)"), "\(resp.stderr)")
        let missing = try run(Paths.tscope, ["ecg", "score", Self.mimic, "--annotator", "gqrsh", "--lead", "EKG II"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("no lead \"EKG II\": the leads are 0 \"MCL1\", 1 \"ABP\", 2 \"RESP\""), "\(missing.stderr)")
        let noReference = try run(Paths.tscope, ["ecg", "score", Self.mimic])
        #expect(noReference.status != 0 && noReference.stderr.contains("03700181.atr"), "\(noReference.stderr)")
    }

    @Test func watchPlaysTheMultiRateRecordAtTheECGRate() throws {
        let tmux = try #require(try TmuxSession(width: 160, height: 32))
        try tmux.type("\(Paths.tscope.path) ecg watch \(Self.mimic) --strip 5")
        _ = try #require(tmux.waitFor("│ 03700181", timeoutSeconds: 20), "\(tmux.screen())")
        // the strips are labelled as they are first drawn: wait for them, not only for the title
        #expect(Self.waitUntil(timeoutSeconds: 15) { let screen = tmux.screen()
            return screen.contains("500 Hz │ 5 s") && screen.contains("MCL1") }, "\(tmux.screen())")
        // the detector runs on the 500 Hz lead: a heart rate appears (this patient is near 115/min)
        #expect(Self.waitUntil(timeoutSeconds: 20) { Self.heartRate(tmux.screen()).map { (60...160).contains($0) } ?? false },
                "\(tmux.screen())")
        try tmux.keys("q")
        #expect(tmux.waitFor("READY$", timeoutSeconds: 10) != nil)
        try tmux.type("\(Paths.tscope.path) ecg watch \(Self.mimic) --lead ABP --strip 5")
        _ = try #require(tmux.waitFor("│ 03700181", timeoutSeconds: 20), "\(tmux.screen())")
        #expect(Self.waitUntil(timeoutSeconds: 15) { let screen = tmux.screen()
            return screen.contains("125 Hz │ 5 s") && screen.contains("RESP") }, "\(tmux.screen())")
        try tmux.keys("q")
        #expect(tmux.waitFor("READY$", timeoutSeconds: 10) != nil)
    }

    private static let mitdb100 = fixtures.appendingPathComponent("mitdb-100/100").path
    private static let generator = fixtures.appendingPathComponent("pyedflib/test_generator_20s.edf").path

    /// MIT-BIH record 100 with its signal file cut to a third (a partial
    /// download): `ecg score` reads the 216 667 complete frames with one
    /// warning and scores the beats inside them; `--strict` refuses it.
    @Test func aWFDBRecordCutShortIsReadToItsLastCompleteFrameUnlessStrict() throws {
        let directory = try Paths.temporaryDirectory("ecg-wfdb-cut")
        defer { try? FileManager.default.removeItem(at: directory) }
        for suffix in ["hea", "atr"] {
            try FileManager.default.copyItem(atPath: Self.mitdb100 + "." + suffix,
                                             toPath: directory.appendingPathComponent("100." + suffix).path)
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.mitdb100 + ".dat"))
        // format 212, two signals: 3 bytes per frame; 650 001 bytes hold 216 667 frames
        try data.prefix(data.count / 3 + 1).write(to: directory.appendingPathComponent("100.dat"))
        let record = directory.appendingPathComponent("100").path
        let result = try run(Paths.tscope, ["ecg", "score", record])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("cut short: \(record).dat ends at byte 650001, after 216667 of the 650000 frames "
            + "the header declares; the 216667 complete frames are used"), "\(result.stderr)")
        #expect(result.stdoutText.contains("216667 samples at 360.0 Hz"), "\(result.stdoutText)")
        let strict = try run(Paths.tscope, ["ecg", "score", record, "--strict"])
        #expect(strict.status != 0 && strict.stderr.contains("byte 650001: data ends after 216667 of the 650000 samples per signal"),
                "\(strict.stderr)")
    }

    @Test func convertWFDBToEDFAndBackKeepsTheSamplesAndScoreReadsTheEDFAnnotations() throws {
        let directory = try Paths.temporaryDirectory("ecg-edf")
        defer { try? FileManager.default.removeItem(at: directory) }
        let edf = directory.appendingPathComponent("100.edf").path
        let toEDF = try run(Paths.tscope, ["ecg", "convert", Self.mitdb100, edf])
        #expect(toEDF.status == 0, "\(toEDF.stderr)")
        #expect(toEDF.stderr.contains("MLII 360 Hz, V5 360 Hz; 2274 annotations"), "\(toEDF.stderr)")
        // the .atr beats travel as EDF+ annotations: the score is the WFDB record's
        let score = try run(Paths.tscope, ["ecg", "score", edf])
        #expect(score.status == 0, "\(score.stderr)")
        #expect(score.stdoutText.contains("record 100, lead 0 (MLII), 650000 samples at 360.0 Hz"), "\(score.stdoutText)")
        #expect(score.stdoutText.contains("TP  2273") && score.stdoutText.contains("FN  0"), "\(score.stdoutText)")
        let v5 = try run(Paths.tscope, ["ecg", "score", edf, "--lead", "V5"])
        #expect(v5.stdoutText.contains("lead 1 (V5)") && v5.stdoutText.contains("TP  2273"), "\(v5.stdoutText)")
        // and back to WFDB: the 650000 samples of each lead sum to the original header's checksums
        let back = directory.appendingPathComponent("back").path
        let toWFDB = try run(Paths.tscope, ["ecg", "convert", edf, back + ".hea"])
        #expect(toWFDB.status == 0, "\(toWFDB.stderr)")
        let header = try String(contentsOfFile: back + ".hea", encoding: .utf8)
        #expect(header.hasPrefix("back 2 360 650000\n"), "\(header)")
        #expect(header.contains(" 995 -22131 0 MLII") && header.contains(" 1011 20052 0 V5"), "\(header)")
        let again = try run(Paths.tscope, ["ecg", "score", back])
        #expect(again.stdoutText.contains("TP  2273"), "\(again.stdoutText) \(again.stderr)")
        // CSV: time_s and the chosen lead in mV
        let csv = directory.appendingPathComponent("v5.csv").path
        let toCSV = try run(Paths.tscope, ["ecg", "convert", edf, csv, "--lead", "V5"])
        #expect(toCSV.status == 0 && toCSV.stderr.contains("2274 left out"), "\(toCSV.stderr)")
        let text = try String(contentsOfFile: csv, encoding: .utf8)
        #expect(text.hasPrefix("time_s,V5\n0.000000,-0.065\n0.002778,-0.065\n"), "\(text.prefix(80))")
    }

    /// `ecg convert --from/--to` writes an excerpt, as WFDB's snip: MIT-BIH 201 from 100 s to 400 s (in its
    /// first AF episode) holds the original's samples 36000–143999, and scoring the excerpt gives what
    /// `ecg score --from 100 --to 400` gives on the whole record, rhythm included: the "(AFIB" in force since
    /// 0.17 s is repeated at the excerpt's start.
    @Test func convertWritesAnExcerptThatScoresAsTheWholeRecordsExcerpt() throws {
        let directory = try Paths.temporaryDirectory("ecg-excerpt")
        defer { try? FileManager.default.removeItem(at: directory) }
        let record201 = Self.fixtures.appendingPathComponent("mitdb-201/201").path
        let excerpt = directory.appendingPathComponent("af201").path
        let cut = try run(Paths.tscope, ["ecg", "convert", record201, excerpt + ".hea", "--from", "100", "--to", "400"])
        #expect(cut.status == 0, "\(cut.stderr)")
        #expect(cut.stderr.contains("(300.000 s from 100 s) → "), "\(cut.stderr)")
        let header = try String(contentsOfFile: excerpt + ".hea", encoding: .utf8)
        #expect(header.hasPrefix("af201 2 360 108000\n"), "\(header)")

        let fromExcerpt = try run(Paths.tscope, ["ecg", "score", excerpt, "--rhythm"])
        let fromWhole = try run(Paths.tscope, ["ecg", "score", record201, "--rhythm", "--from", "100", "--to", "400"])
        #expect(fromExcerpt.status == 0 && fromWhole.status == 0, "\(fromExcerpt.stderr) \(fromWhole.stderr)")
        let excerptLines = fromExcerpt.stdoutText.split(separator: "\n").dropFirst()
        let wholeLines = fromWhole.stdoutText.split(separator: "\n").dropFirst()
        #expect(Array(excerptLines) == Array(wholeLines), "\(fromExcerpt.stdoutText)\n\(fromWhole.stdoutText)")
        // 278 reference AF seconds: the engine says AF in at least 250 of them (measured 256)
        let afSeconds = try #require(excerptLines.first { $0.hasPrefix("AF seconds   Se ") }, "\(fromExcerpt.stdoutText)")
        let truePositives = try #require(afSeconds.range(of: "TP ").flatMap { Int(afSeconds[$0.upperBound...].prefix { $0.isNumber }) })
        #expect(truePositives >= 250, "\(afSeconds)")

        // the samples: the excerpt's CSV rows are the whole record's rows from 36000 on, a sample apart in time
        let whole = directory.appendingPathComponent("whole.csv").path
        let part = directory.appendingPathComponent("part.csv").path
        #expect(try run(Paths.tscope, ["ecg", "convert", record201, whole, "--to", "400"]).status == 0)
        #expect(try run(Paths.tscope, ["ecg", "convert", excerpt, part]).status == 0)
        let wholeRows = try String(contentsOfFile: whole, encoding: .utf8).split(separator: "\n").dropFirst()
        let partRows = try String(contentsOfFile: part, encoding: .utf8).split(separator: "\n").dropFirst()
        #expect(wholeRows.count == 144_000 && partRows.count == 108_000)
        let values = { (row: Substring) in row.split(separator: ",").dropFirst().joined(separator: ",") }
        #expect(partRows.map(values) == wholeRows.dropFirst(36_000).map(values))

        // a CinC header's date and time move on by the whole seconds; a fraction is said on stderr
        let cinc = Self.fixtures.appendingPathComponent("cinc2017-validation/A00056").path
        let later = directory.appendingPathComponent("later").path
        let moved = try run(Paths.tscope, ["ecg", "convert", cinc, later + ".hea", "--from", "10.5", "--to", "20"])
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(moved.stderr.contains("the excerpt starts 10.500 s in: its start time is given to the whole second before"),
                "\(moved.stderr)")
        let laterHeader = try String(contentsOfFile: later + ".hea", encoding: .utf8)
        #expect(laterHeader.hasPrefix("later 1 300 2850 08:05:15 08/05/2014\n"), "\(laterHeader)")
        let pastTheEnd = try run(Paths.tscope, ["ecg", "convert", cinc, later + ".hea", "--from", "40"])
        #expect(pastTheEnd.status != 0 && pastTheEnd.stderr.contains("A00056: --from 40 s: the record ends at 30.000 s"),
                "\(pastTheEnd.stderr)")
        let backwards = try run(Paths.tscope, ["ecg", "convert", cinc, later + ".hea", "--from", "5", "--to", "4"])
        #expect(backwards.status != 0 && backwards.stderr.contains("--to 4.0 must come after --from 5.0"), "\(backwards.stderr)")
    }

    @Test func watchPlaysAnEDFLeadChosenByLabel() throws {
        let tmux = try #require(try TmuxSession(width: 160, height: 32))
        try tmux.type("\(Paths.tscope.path) ecg watch '\(Self.generator)' --lead 'sine 8 Hz' --layout strip")
        let screen = try #require(tmux.waitFor("│ test_generator_20s", timeoutSeconds: 20), "\(tmux.screen())")
        #expect(screen.contains("200 Hz"), "\(screen)")
        #expect(screen.contains("sine 8 Hz"), "\(screen)")
        try tmux.keys("q")
        #expect(tmux.waitFor("READY$", timeoutSeconds: 10) != nil)
    }

    @Test func edfAnnotationsAreWrittenOnTheStrip() throws {
        let file = Self.fixtures.appendingPathComponent("pyedflib/test_utf8.edf").path
        let tmux = try #require(try TmuxSession(width: 160, height: 32))
        try tmux.type("\(Paths.tscope.path) ecg watch \(file) --strip 5")
        let screen = try #require(tmux.waitFor("│ test_utf8", timeoutSeconds: 20), "\(tmux.screen())")
        #expect(screen.contains("128 Hz") && screen.contains("Fp1"), "\(screen)")
        // "XLSpike" at 1.56 s and "Clip Note" at 3.10 s after the first sample
        #expect(tmux.waitFor("◆XLSpike", timeoutSeconds: 10) != nil, "\(tmux.screen())")
        #expect(tmux.waitFor("◆Clip Note", timeoutSeconds: 10) != nil, "\(tmux.screen())")
        try tmux.keys("q")
        #expect(tmux.waitFor("READY$", timeoutSeconds: 10) != nil)
    }

    @Test func edfBeatAnnotationsAreMarkedInTheStrip() throws {
        let directory = try Paths.temporaryDirectory("ecg-edf-watch")
        defer { try? FileManager.default.removeItem(at: directory) }
        let edf = directory.appendingPathComponent("100.edf").path
        #expect(try run(Paths.tscope, ["ecg", "convert", Self.mitdb100, edf]).status == 0)
        let tmux = try #require(try TmuxSession(width: 160, height: 32))
        try tmux.type("\(Paths.tscope.path) ecg watch \(edf) --strip 5")
        let screen = try #require(tmux.waitFor("│ 100", timeoutSeconds: 20), "\(tmux.screen())")
        #expect(screen.contains("360 Hz │ 5 s") && screen.contains("MLII"), "\(screen)")
        #expect(tmux.waitFor("▾", timeoutSeconds: 10) != nil, "\(tmux.screen())")
        #expect(Self.waitUntil(timeoutSeconds: 15) { Self.heartRate(tmux.screen()).map { (65...90).contains($0) } ?? false },
                "\(tmux.screen())")
        try tmux.keys("q")
        #expect(tmux.waitFor("READY$", timeoutSeconds: 10) != nil)
    }

    @Test func badEDFFilesGiveOneLineWithFieldAndOffset() throws {
        let directory = try Paths.temporaryDirectory("ecg-edf-bad")
        defer { try? FileManager.default.removeItem(at: directory) }
        let original = try Data(contentsOf: URL(fileURLWithPath: Self.generator))
        func write(_ name: String, _ bytes: Data) throws -> String {
            let path = directory.appendingPathComponent(name).path
            try bytes.write(to: URL(fileURLWithPath: path))
            return path
        }
        var digital = original
        // digital maximum of signal 0 (12 signals: 256 + 12 × (16 + 80 + 8 + 8 + 8 + 8))
        digital.replaceSubrange(1792..<1800, with: Array("-32768  ".utf8))
        let cases: [(path: String, arguments: [String], mentions: String)] = [
            (try write("short.edf", original.prefix(200)), [], "byte 200: header too short"),
            (try write("digital.edf", digital), [], "byte 1696: digital minimum of signal 0 (squarewave): must be below the digital maximum"),
            (try write("count.edf", original.prefix(3328 + 4514 * 5)), ["--strict"],
             "byte 236: number of data records: the header says 20"),
            (Self.generator, ["--lead", "sine 9 Hz"], "no lead \"sine 9 Hz\": the leads are 0 \"squarewave\""),
        ]
        for (path, arguments, mentions) in cases {
            for command in ["watch", "score"] {
                let result = try run(Paths.tscope, ["ecg", command, path] + arguments)
                #expect(result.status != 0, "\(command) \(path)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(command) \(path): \(result.stderr)")
                #expect(result.stderr.contains(mentions), "\(command) \(path): \(result.stderr)")
            }
        }
        // a CSV's leads are chosen the same way
        let csv = try write("two.csv", Data("time,I,II\n0,0.1,0.2\n0.004,0.1,0.2\n0.008,0.1,0.2\n".utf8))
        let noLead = try run(Paths.tscope, ["ecg", "watch", csv, "--lead", "III"])
        #expect(noLead.status != 0 && noLead.stderr.contains("no lead \"III\": the leads are 0 \"I\", 1 \"II\""), "\(noLead.stderr)")
        // a file cut short (5 of 20 records, as a copy made while it was written): its 5 records, one warning
        let cut = try run(Paths.tscope, ["ecg", "convert", try write("cut.edf", original.prefix(3328 + 4514 * 5 + 1000)),
                                         directory.appendingPathComponent("cut.hea").path])
        #expect(cut.status == 0, "\(cut.stderr)")
        #expect(cut.stderr.components(separatedBy: "cut short").count == 2 && cut.stderr.contains(
            "cut short: the header promises 20 data records, 5 are complete; the data ends at byte 26898 inside record 6"),
                "\(cut.stderr)")
        // 5 records of 1 s at 200 Hz: 1000 samples per signal in the WFDB header's length
        let cutHeader = try String(contentsOfFile: directory.appendingPathComponent("cut.hea").path, encoding: .utf8)
        #expect(cutHeader.hasPrefix("cut 11 200 1000 "), "\(cutHeader)")
        // a truncated last record: reported, and the complete records are used
        let truncated = try write("truncated.edf", original.prefix(3328 + 4514 * 20 - 100))
        let converted = directory.appendingPathComponent("t.hea").path
        let result = try run(Paths.tscope, ["ecg", "convert", truncated, converted])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("last data record truncated: 4414 of 4514 bytes at byte 89094; the 19 complete records are used"),
                "\(result.stderr)")
        #expect(try String(contentsOfFile: converted, encoding: .utf8).hasPrefix("t 11 200 3800 12:57:02 04/04/2011\n"))
    }

    @Test func followShowsRecordsAppendedToAGrowingEDF() throws {
        let directory = try Paths.temporaryDirectory("ecg-edf-follow")
        defer { try? FileManager.default.removeItem(at: directory) }
        let full = directory.appendingPathComponent("full.edf").path
        #expect(try run(Paths.tscope, ["ecg", "convert", Self.mitdb100, full]).status == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: full))
        let field = { (offset: Int) in Int(String(decoding: bytes[offset..<offset + 8], as: UTF8.self).trimmingCharacters(in: .whitespaces))! }
        let header = field(184), recordBytes = (bytes.count - header) / field(236)
        // a recorder that has written its header, no record yet, and does not know how many will follow
        var start = bytes.prefix(header)
        start.replaceSubrange(236..<244, with: Array("-1      ".utf8))
        let growing = directory.appendingPathComponent("growing.edf")
        try start.write(to: growing)

        let tmux = try #require(try TmuxSession(width: 160, height: 32))
        try tmux.type("\(Paths.tscope.path) ecg watch \(growing.path) --follow --strip 5")
        let screen = try #require(tmux.waitFor("│ growing", timeoutSeconds: 20), "\(tmux.screen())")
        #expect(screen.contains("360 Hz │ 5 s") && screen.contains("MLII"), "\(screen)")
        usleep(1_000_000)
        #expect(tmux.screen().contains("HR --"), "no data yet: \(tmux.screen())")
        // records land at 10× real time; the viewer shows them as they come and measures the heart rate
        let appender = try FileHandle(forWritingTo: growing)
        for record in 0..<60 {
            try appender.seekToEnd()
            try appender.write(contentsOf: bytes[(header + record * recordBytes)..<(header + (record + 1) * recordBytes)])
            usleep(100_000)
        }
        try appender.close()
        #expect(Self.waitUntil(timeoutSeconds: 10) { Self.heartRate(tmux.screen()).map { (65...90).contains($0) } ?? false },
                "\(tmux.screen())")
        // no more data: it keeps waiting instead of ending
        usleep(1_000_000)
        #expect(tmux.screen().contains("│ growing"), "\(tmux.screen())")
        try tmux.keys("q")
        #expect(tmux.waitFor("READY$", timeoutSeconds: 10) != nil)

        let notEDF = try run(Paths.tscope, ["ecg", "watch", Self.mitdb100, "--follow"])
        #expect(notEDF.status != 0 && notEDF.stderr.contains("--follow"), "\(notEDF.stderr)")
    }

    /// A figure of the score report ("Se  99.91 %") as a number.
    static func figure(_ name: String, _ text: String) -> Double? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + " ") }) else { return nil }
        return Double(line.dropFirst(name.count).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
    }

    /// The heart rate on the status line ("HR 72"), nil while "HR --".
    static func heartRate(_ screen: String) -> Int? {
        guard let range = screen.range(of: "HR ") else { return nil }
        return Int(screen[range.upperBound...].prefix { $0.isNumber })
    }

    static func waitUntil(timeoutSeconds: Double = 5, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        repeat {
            if condition() { return true }
            usleep(100_000)
        } while Date() < deadline
        return false
    }
}

import Foundation
import Testing
@testable import ECG

/// Beat lists read from the files straps, HRV apps, Kubios and Holter annotators write
/// (Fixtures/rr-lists, Fixtures/ltafdb-beats; provenance in Fixtures/README.md).
@Suite struct BeatListFileTests {
    static let lists = Fixture.directory + "/rr-lists/"
    static let ltafdb = Fixture.directory + "/ltafdb-beats/"

    /// The RR column of the Kubios report against Kubios' own Time column: each beat after the first
    /// lands where Kubios' running sum says, within the 1 ms clock's rounding.
    @Test func kubiosReportReadsTheRRColumnAndAgreesWithKubiosTimes() throws {
        let path = Self.lists + "kubios-hrv-report.txt"
        let list = try BeatListFile.readIntervals(path: path)
        #expect(list.sampleRate == 1000)
        // Kubios' columns, read apart: `, Time, RR interval, …` rows after the "(s)" unit row
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let rows = text.components(separatedBy: "\r\n").map { $0.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) } }
        let unitRow = try #require(rows.firstIndex { $0.count > 2 && $0[1] == "(s)" && $0[2] == "(s)" })
        let kubios = rows[(unitRow + 1)...].filter { $0.count > 2 && Double($0[1]) != nil }
        #expect(kubios.count == 300)
        #expect(list.samples.count == kubios.count + 1 && list.samples.first == 0)
        for (index, row) in kubios.enumerated() {
            let time = try #require(Double(row[1])), interval = try #require(Double(row[2]))
            #expect(abs(Double(list.samples[index + 1]) - time * 1000) <= 1.5, "row \(index): \(row)")
            #expect(abs(Double(list.samples[index + 1] - list.samples[index]) - interval * 1000) <= 1, "row \(index)")
        }
    }

    @Test func kubiosInputWithCommentsIsMilliseconds() throws {
        let list = try BeatListFile.readIntervals(path: Self.lists + "kubios-input_pyhrv-export.txt")
        #expect(list.samples.count == 301)
        #expect(list.samples[1] == 766)   // the first value, `766.000`
    }

    /// CRLF, one value per line, ending with a `0` (a lost beat's marker) and an empty line.
    @Test func plainMillisecondsSkipsAndCountsTheZero() throws {
        let path = Self.lists + "plain-ms_crlf_real-rri.txt"
        let values = try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isNewline).compactMap { Int($0) }
        #expect(values.count == 299 && values.last == 0)
        let list = try BeatListFile.readIntervals(path: path)
        #expect(list.skippedIntervals == 1)
        #expect(list.samples.count == 299)
        #expect(list.samples.last == values.reduce(0, +))
    }

    @Test func polarHRMInRRModeReadsHRData() throws {
        let list = try BeatListFile.readIntervals(path: Self.lists + "polar-hrm_exercise.hrm")
        #expect(list.samples.count == 301)
        #expect(list.samples[1] == 1589 && list.samples[2] == 1589 + 783)
    }

    @Test func polarHRMOfHeartRatesIsRefused() throws {
        let text = "[Params]\nVersion=106\nInterval=1\n\n[HRData]\n71\n72\n"
        #expect(throws: ECGError(file: "x.hrm", location: .line(3),
                                 "expected a Polar .hrm file recorded in R-R mode (Interval=238), found heart rates at a fixed interval")) {
            try BeatListFile.parseIntervals(text, file: "x.hrm")
        }
    }

    /// A Polar H10 series on one line, spaces between, no line end at all.
    @Test func oneLineOfIntervals() throws {
        let path = Self.lists + "welltory_polar-h10_space-separated.txt"
        let values = try String(contentsOfFile: path, encoding: .utf8).split(separator: " ").compactMap { Int($0) }
        #expect(values.count == 100)
        let list = try BeatListFile.readIntervals(path: path)
        #expect(list.samples.count == 101 && list.samples.last == values.reduce(0, +))
    }

    /// The layouts of exports the project may not redistribute, as their headers and rows are
    /// (Polar Sensor Logger, HRV Logger, Polar V800): values invented, layout as the apps write it.
    @Test func layoutsOfOtherApps() throws {
        let polar = try BeatListFile.parseIntervals(
            "Phone timestamp;RR-interval [ms]\r\n2023-02-08T18:51:19.593;359\r\n2023-02-08T18:51:19.952;361\r\n", file: "p.txt")
        #expect(polar.samples == [0, 359, 720])
        let hrvLogger = try BeatListFile.parseIntervals(
            "timestamp, rr, since_start \n\n1675889367255,894,34096\n1675889367305,880,34976\n", file: "h.csv")
        #expect(hrvLogger.samples == [0, 894, 1774])
        let v800 = try BeatListFile.parseIntervals("0.000 0.749\n5.455 0.749\n6.215 0.76\n", file: "v.txt")
        #expect(v800.samples == [0, 749, 1498, 2258])
        let seconds = try BeatListFile.parseIntervals("RR (s)\n0.8\n0.82\n", file: "s.csv")
        #expect(seconds.samples == [0, 800, 1620])
        let named = try BeatListFile.parseIntervals("time,rr_ms\n0,812\n0.81,790\n", file: "n.csv")
        #expect(named.samples == [0, 812, 1602])
    }

    @Test func badIntervalsNameTheLine() throws {
        #expect(throws: ECGError(file: "p.txt", location: .line(3), "expected an RR interval in column 2, found \"abc\"")) {
            try BeatListFile.parseIntervals("Phone timestamp;RR-interval [ms]\r\nt;800\r\nt;abc\r\n", file: "p.txt")
        }
        #expect(throws: ECGError(file: "e.txt", location: .line(2), "expected an RR interval of 0 or more, found -5.0")) {
            try BeatListFile.parseIntervals("800\n-5\n810\n", file: "e.txt")
        }
        #expect(throws: ECGError(file: "one.txt", "expected RR intervals, found 1")) {
            try BeatListFile.parseIntervals("800\n", file: "one.txt")
        }
        #expect(throws: ECGError(file: "empty.txt", "expected RR intervals, found an empty file")) {
            try BeatListFile.parseIntervals("\n\n", file: "empty.txt")
        }
        #expect(throws: ECGError.self) { try BeatListFile.parseIntervals("heart rate\n70\n71\n", file: "hr.csv") }
    }

    /// LTAFDB's automatic and reviewed beats against wfdb-python's `rdann` (counts in Fixtures/README.md).
    @Test func ltafdbAnnotationsAsBeats() throws {
        let qrs = try BeatListFile.readAnnotations(record: Self.ltafdb + "30", annotator: "qrs")
        #expect(qrs.sampleRate == 128 && qrs.samples.count == 32_220)
        #expect(Array(qrs.samples.prefix(3)) == [1496, 1740, 1805] && qrs.samples.last == 2_826_185)
        #expect(qrs.endSample == 2_826_240)   // the header's length, past the last beat
        let atr = try BeatListFile.readAnnotations(record: Self.ltafdb + "30.hea", annotator: "atr")
        #expect(atr.samples.count == 31_161)
        let classes = try #require(atr.classes)
        #expect(classes.filter { $0 == .supraventricular }.count == 1_730)
        #expect(classes.filter { $0 == .ventricular }.count == 42)
        let dropped = try BeatListFile.readAnnotations(record: Self.ltafdb + "62", annotator: Self.ltafdb + "62.qrs")
        #expect(dropped.samples.count == 60_750)
    }

    @Test func annotationsWithoutARate() throws {
        let directory = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.copyItem(atPath: Self.ltafdb + "30.qrs", toPath: directory + "/30.qrs")
        #expect(throws: ECGError(file: directory + "/30.qrs", "no sampling rate: expected the record's header \(directory)/30.hea or --rate")) {
            try BeatListFile.readAnnotations(record: directory + "/30", annotator: "qrs")
        }
        let list = try BeatListFile.readAnnotations(record: directory + "/30", annotator: "qrs", rate: 128)
        #expect(list.samples.count == 32_220)
        #expect(throws: ECGError.self) { try BeatListFile.readAnnotations(record: directory + "/30", annotator: "atr", rate: 128) }
    }
}

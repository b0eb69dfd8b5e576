import Foundation
import Testing
@testable import ECG

/// EDF/EDF+ files written by other tools (pyedflib's test files, checked
/// against pyedflib 0.1.42: see Fixtures/README.md) and hand-built files for
/// every error the reader names.
@Suite struct EDFTests {
    static let generator = Fixture.directory + "/pyedflib/test_generator_20s.edf"
    static let utf8 = Fixture.directory + "/pyedflib/test_utf8.edf"

    @Test func readsEDFbrowsersGeneratorFileAsPyedflibDoes() throws {
        let recording = try EDFReader.read(path: Self.generator)
        #expect(recording.labels == ["squarewave", "ramp", "pulse", "noise", "sine 1 Hz", "sine 8 Hz", "sine 8.1777 Hz",
                                     "sine 8.5 Hz", "sine 15 Hz", "sine 17 Hz", "sine 50 Hz"])
        #expect(recording.signals.allSatisfy { $0.sampleRate == 200 && $0.digital.count == 4000 && $0.units == "uV" })
        #expect(recording.notes.isEmpty)
        // pyedflib readSignal(i, digital=True): [0..<4], [1000] and the sum over the 4000 samples
        let expected: [(index: Int, first: [Int16], at1000: Int16, sum: Int)] = [
            (1, [-3276, -3243, -3211, -3178], -3276, -65520),
            (3, [2752, 1277, 2555, 2588], 1474, 6_495_337),
            (6, [832, 1610, 2282, 2805], -1406, 24078),
            (10, [3276, 0, -3276, 0], 3276, 0),
        ]
        for (index, first, at1000, sum) in expected {
            let digital = recording.signals[index].digital
            #expect(Array(digital.prefix(4)) == first, "\(recording.labels[index])")
            #expect(digital[1000] == at1000)
            #expect(digital.reduce(0) { $0 + Int($1) } == sum)
        }
        // pyedflib readSignal(3) [µV]: 84.0009155413138, 38.986800946059354; here in mV
        let noise = recording.signals[3].millivolts
        #expect(abs(Double(noise[0]) - 0.0840009155413138) < 1e-7)
        #expect(abs(Double(noise[1]) - 0.038986800946059354) < 1e-7)
        // pyedflib readAnnotations(): (0, "Recording starts"), (600, "Recording ends")
        #expect(recording.annotations.map(\.text) == ["Recording starts", "Recording ends"])
        #expect(recording.annotations.map(\.onset) == [0, 600])
        #expect(recording.annotations.allSatisfy { !$0.isBeat && $0.duration == nil })
        // pyedflib getStartdatetime(): 2011-04-04 12:57:02
        #expect(recording.start == ECGStartTime(hour: 12, minute: 57, second: 2, date: (4, 4, 2011)))
    }

    @Test func readsSubsecondStartInvertedRangeAndUTF8Annotations() throws {
        let recording = try EDFReader.read(path: Self.utf8)
        #expect(recording.labels == ["Fp1"])
        let fp1 = recording.signals[0]
        #expect(fp1.sampleRate == 128 && fp1.digital.count == 89344)
        #expect(Array(fp1.digital.prefix(4)) == [-24, -29, -39, -38])
        #expect(fp1.digital[1000] == 21)
        #expect(fp1.digital.reduce(0) { $0 + Int($1) } == 56106)
        // physical max −8711 < min 8711: the gain is negative; pyedflib: 6.247302967879759 µV, −5.715617608911269 µV
        #expect(fp1.gain < 0)
        #expect(abs(Double(fp1.millivolts[0]) - 0.006247302967879759) < 1e-8)
        #expect(abs(Double(fp1.millivolts[1000]) - -0.005715617608911269) < 1e-8)
        // onsets from the first sample (the file starts 0.3945312 s after its header time), as pyedflib gives them
        let expected: [(Double, String)] = [(1.5566407, "XLSpike"), (3.0976563, "Clip Note"), (119.6054688, "中文测试八个字"),
                                            (290.1074219, "XLEvent"), (583.1777344, "XLSpike")]
        #expect(recording.annotations.count == expected.count)
        for (annotation, (onset, text)) in zip(recording.annotations, expected) {
            #expect(abs(annotation.onset - onset) < 1e-7 && annotation.text == text, "\(annotation)")
        }
    }

    @Test func leadsAreChosenByExactLabelOrIndexAndPlayAtTheirRate() throws {
        let bytes = Self.build(signals: [
            .init(label: "EKG I", samples: 5), .init(label: "EKG II", samples: 10), .init(label: "Resp", samples: 5),
        ], records: 2)
        let recording = try bytes.withUnsafeBytes { try EDFReader.decode($0, file: "r.edf", name: "r") }
        #expect(recording.signals.map(\.sampleRate) == [5, 10, 5])
        let second = try recording.record(lead: LeadSelector("EKG II"), file: "r.edf")
        #expect(second.record.leadNames == ["EKG II"] && second.record.sampleRate == 10 && second.record.frameCount == 20)
        #expect(second.otherRates == ["EKG I (5 Hz)", "Resp (5 Hz)"])
        let first = try recording.record(lead: LeadSelector("0"), file: "r.edf")
        #expect(first.record.leadNames == ["EKG I", "Resp"] && first.lead == 0)
        #expect(throws: ECGError(file: "r.edf", "no lead \"EKG\": the leads are 0 \"EKG I\", 1 \"EKG II\", 2 \"Resp\"")) {
            try recording.record(lead: LeadSelector("EKG"), file: "r.edf")
        }
        #expect(throws: ECGError.self) { try recording.record(lead: LeadSelector("3"), file: "r.edf") }
        // no lead asked for: the first ECG lead
        #expect(try recording.record(lead: nil, file: "r.edf").record.leadNames.first == "EKG I")
    }

    @Test func beatAnnotationsBecomeReferenceBeatsAtTheLeadsRate() throws {
        let tals = EDFWriter.tal(onset: 0, duration: nil, texts: [""]) + EDFWriter.tal(onset: 0.5, duration: nil, texts: ["N"])
            + EDFWriter.tal(onset: 1.25, duration: 0.1, texts: ["V"]) + EDFWriter.tal(onset: 1.5, duration: 30, texts: ["Lights off"])
        let bytes = Self.build(signals: [.init(label: "ECG", samples: 100)], records: 2, annotations: [tals, EDFWriter.tal(onset: 1, duration: nil, texts: [""])])
        let recording = try bytes.withUnsafeBytes { try EDFReader.decode($0, file: "b.edf", name: "b") }
        #expect(recording.annotations.map(\.text) == ["N", "V", "Lights off"])
        #expect(recording.annotations.map(\.duration) == [nil, 0.1, 30])
        #expect(recording.beatSamples(atRate: 100) == [50, 125])
    }

    @Test func truncatedLastRecordIsReportedAndTheCompleteOnesUsed() throws {
        var bytes = Self.build(signals: [.init(label: "ECG", samples: 4)], records: 3)
        bytes.removeLast(3)
        let recording = try bytes.withUnsafeBytes { try EDFReader.decode($0, file: "t.edf", name: "t") }
        #expect(recording.signals[0].digital.count == 8)
        #expect(recording.notes == ["last data record truncated: 21 of 24 bytes at byte 816; the 2 complete records are used"])
    }

    /// Data that ends before the header's count (a copy made while the file
    /// was written): its complete records with a note saying what is missing
    /// and where the data ends; `strict` refuses it naming the header field.
    @Test func aFileCutShortGivesItsCompleteRecordsUnlessStrict() throws {
        var bytes = Self.build(signals: [.init(label: "ECG", samples: 4)], records: 3)
        Self.set(&bytes, 236, "9")
        bytes.removeLast(2)
        let recording = try bytes.withUnsafeBytes { try EDFReader.decode($0, file: "c.edf", name: "c") }
        // 3 records of 24 bytes (4 two-byte ECG samples and the annotation signal build adds), 2 bytes cut:
        // 70 bytes, 2 complete records and 22 bytes
        #expect(recording.signals[0].digital.count == 8)
        #expect(recording.notes == ["cut short: the header promises 9 data records, 2 are complete; the data ends at byte "
            + "\(bytes.count) inside record 3; the 2 complete records are used (--strict refuses the file)"], "\(recording.notes)")
        let refused = Self.message { try bytes.withUnsafeBytes { try EDFReader.decode($0, file: "c.edf", name: "c", strict: true) } }
        #expect(refused == "c.edf: byte 236: number of data records: the header says 9, the 70 bytes after the header hold "
            + "2 records of 24 bytes and 22 bytes more", "\(String(describing: refused))")
    }

    @Test func recordCountOfMinusOneMeansAsManyAsTheFileHolds() throws {
        let bytes = Self.build(signals: [.init(label: "ECG", samples: 4)], records: 3, countField: "-1")
        let recording = try bytes.withUnsafeBytes { try EDFReader.decode($0, file: "g.edf", name: "g") }
        #expect(recording.signals[0].digital.count == 12)
    }

    @Test func discontinuousRecordsLeaveMissingSamplesInTheGap() throws {
        let keep = { (onset: Double) in EDFWriter.tal(onset: onset, duration: nil, texts: [""]) }
        let bytes = Self.build(signals: [.init(label: "ECG", samples: 4, digital: -100...100)], records: 2,
                               annotations: [keep(0), keep(3)], reserved: "EDF+D")
        let recording = try bytes.withUnsafeBytes { try EDFReader.decode($0, file: "d.edf", name: "d") }
        // records of 1 s at 4 Hz starting at 0 s and 3 s: 2 s of gap = 8 missing samples
        let values = recording.signals[0].millivolts
        #expect(values.count == 16)
        #expect(values[4..<12].allSatisfy(\.isNaN) && values[0..<4].allSatisfy(\.isFinite) && values[12...].allSatisfy(\.isFinite))
        #expect(recording.notes.count == 1)
    }

    static let badCases: [(String, @Sendable (inout [UInt8]) -> Void, String)] = [
        ("short", { $0 = Array($0.prefix(100)) }, "s.edf: byte 100: header too short: 100 bytes, the fixed EDF header is 256"),
        ("signal headers cut", { $0 = Array($0.prefix(300)) }, "s.edf: byte 300: header too short: 300 bytes, 2 signals need 768"),
        ("count", { set(&$0, 236, "1") }, "s.edf: byte 236: number of data records: the header says 1, the 48 bytes after the header hold 2 records of 24 bytes"),
        ("count text", { set(&$0, 236, "two") }, "s.edf: byte 236: number of data records: expected an integer, found \"two\""),
        ("header bytes", { set(&$0, 184, "512") }, "s.edf: byte 184: number of bytes in header record: 2 signals need 768, the header says 512"),
        ("digital min = max", { set(&$0, 496, "100") }, "s.edf: byte 496: digital minimum of signal 0 (ECG): must be below the digital maximum (100, 100)"),
        ("physical min = max", { set(&$0, 480, "-1") }, "s.edf: byte 464: physical minimum of signal 0 (ECG): equals the physical maximum (-1.0): no scale"),
        ("physical text", { set(&$0, 480, "nan") }, "s.edf: byte 480: physical maximum of signal 0 (ECG): expected a number, found \"nan\""),
        ("samples", { set(&$0, 688, "0") }, "s.edf: byte 688: number of samples in each data record of signal 0 (ECG): expected 1 to 4194304, found 0"),
        ("version", { set(&$0, 0, "1") }, "s.edf: byte 0: version: expected \"0\", found \"1\""),
        ("bdf", { $0[0] = 0xFF }, "s.edf: byte 0: version: a BDF file (24-bit samples) is not EDF; not supported"),
    ]

    @Test(arguments: badCases.indices)
    func badFilesNameFieldAndByteOffset(index: Int) {
        let (name, damage, message) = Self.badCases[index]
        var bytes = Self.build(signals: [.init(label: "ECG", samples: 4, digital: -100...100, physical: (-1, 1))], records: 2)
        damage(&bytes)
        let result = Self.message { try bytes.withUnsafeBytes { try EDFReader.decode($0, file: "s.edf", name: "s") } }
        #expect(result == message, "\(name)")
    }

    @Test func badTALsNameTheByteOffset() {
        let broken = Array("+0\u{14}\u{14}\u{0}1.5\u{14}x\u{14}\u{0}".utf8)
        let bytes = Self.build(signals: [.init(label: "ECG", samples: 4)], records: 1, annotations: [broken])
        let result = Self.message { try bytes.withUnsafeBytes { try EDFReader.decode($0, file: "a.edf", name: "a") } }
        // record 0 starts at 768 (two signals); the ECG's 8 bytes come first, the second TAL at +5
        #expect(result == "a.edf: byte 781: EDF Annotations: TAL does not parse: expected \"+\" or \"-\" before the onset, found byte 49")
        for (tal, detail) in [("+\u{14}", "expected an onset in seconds"), ("+1\u{15}\u{14}", "expected a duration in seconds"),
                              ("+1 \u{14}", "expected 0x14 after the onset"), ("+1\u{14}text", "annotation text must end with 0x14")] {
            let result = Self.message { try Array(tal.utf8).withUnsafeBytes { try EDFAnnotationParser.parse($0, file: "a", fileOffset: 0) } }
            #expect(result?.contains(detail) == true, "\(tal): \(result ?? "no error")")
        }
    }

    @Test func talsWithNegativeOnsetsDurationsAndSeveralTexts() throws {
        let bytes = Array("+0\u{14}\u{14}\u{0}-2.5\u{15}1\u{14}a\u{14}b\u{14}\u{0}\u{0}\u{0}".utf8)
        let tals = try bytes.withUnsafeBytes { try EDFAnnotationParser.parse($0, file: "t", fileOffset: 0) }
        #expect(tals == [EDFTAL(onset: 0, duration: nil, texts: []), EDFTAL(onset: -2.5, duration: 1, texts: ["a", "b"])])
    }

    @Test func writerRoundTripKeepsSamplesScalingLabelsAndAnnotations() throws {
        let mimic = try WFDBRecordReader.readRecording(path: WFDBMultiRateTests.mimic, annotator: "gqrsh")
        let bytes = try EDFWriter.encode(mimic, file: "m.edf")
        let back = try bytes.withUnsafeBytes { try EDFReader.decode($0, file: "m.edf", name: "m") }
        #expect(back.labels == mimic.labels)
        #expect(back.signals.map(\.sampleRate) == [500, 125, 125])
        for (a, b) in zip(mimic.signals, back.signals) {
            #expect(a.digital == b.digital, "\(a.label)")
            #expect(abs(a.gain - b.gain) / a.gain < 1e-4 && abs(a.baseline - b.baseline) < 0.05, "\(a.label): \(b.gain) \(b.baseline)")
            #expect(a.units == b.units)
        }
        #expect(back.annotations.count == mimic.annotations.count)
        // the start travels: WFDB "17:27:45 15/08/1994" → EDF "15.08.94", "17.27.45", "Startdate 15-AUG-1994"
        #expect(mimic.start == ECGStartTime(hour: 17, minute: 27, second: 45, date: (15, 8, 1994)))
        #expect(back.start == mimic.start)
        #expect(String(decoding: bytes[168..<184], as: UTF8.self) == "15.08.9417.27.45")
        #expect(String(decoding: bytes[88..<110], as: UTF8.self) == "Startdate 15-AUG-1994 ")
        let mimicWFDB = try WFDBWriter.encode(back, name: "m", file: "m.hea")
        #expect(String(decoding: mimicWFDB.header, as: UTF8.self).hasPrefix("m 3 125 75000 17:27:45 15/08/1994\n"))
        // the 500 Hz beat times survive the 125 Hz frames: the .atr counts at 500 Hz and says so, as gqrsh did
        let atr = try #require(mimicWFDB.annotations)
        let written = try atr.withUnsafeBytes { try WFDBAnnotationReader.read($0, file: "m.atr") }
        #expect(try WFDBAnnotationReader.timeResolution(written, file: "m.atr") == 500)
        let original = try WFDBRecordReader.readAnnotations(recordPath: WFDBMultiRateTests.mimic, annotator: "gqrsh")
        #expect(written.filter(\.isBeat).map(\.sample) == original.filter(\.isBeat).map(\.sample))
        #expect(zip(back.annotations, mimic.annotations).allSatisfy { abs($0.onset - $1.onset) < 1e-6 && $0.text == $1.text })
        // 650000 samples at 360 Hz fill 1805 5/9 records of 1 s: padded, marked, cut back on reading
        let record100 = try WFDBRecordReader.readRecording(path: Fixture.mitdb100)
        let padded = try EDFWriter.encode(record100, file: "100.edf")
        let back100 = try padded.withUnsafeBytes { try EDFReader.decode($0, file: "100.edf", name: "100") }
        #expect(back100.signals.map(\.digital) == record100.signals.map(\.digital))
        #expect(back100.annotations.count == record100.annotations.count)
        // and back to WFDB: the same 16-bit samples
        let wfdb = try WFDBWriter.encode(back100, name: "100", file: "100.hea")
        let header = try WFDBHeader.parse(String(decoding: wfdb.header, as: UTF8.self), file: "100.hea")
        let again = try WFDBRecordReader.decodeRecording(header: header) { _ in ("100.dat", wfdb.data) }
        #expect(again.signals.map(\.digital) == record100.signals.map(\.digital))
        #expect(header.signals.map(\.checksum) == [-22131, 20052])
    }

    @Test func followSourceDeliversRecordsAsTheyLandWithoutRereading() throws {
        let directory = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/growing.edf"
        // five records of 4 samples, count −1; the file starts with two and a half of them
        let whole = Self.build(signals: [.init(label: "ECG", samples: 4), .init(label: "Slow", samples: 2)], records: 5, countField: "-1")
        let header = 256 * 4, record = (4 + 2 + 8) * 2
        #expect(whole.count == header + 5 * record)
        try Data(whole.prefix(header + 2 * record + record / 2)).write(to: URL(fileURLWithPath: path))
        let source = try EDFFollowSource(path: path, lead: LeadSelector("ECG"))
        #expect(source.leadNames == ["ECG"] && source.sampleRate == 4 && source.header.recordCount == nil)
        var chunk = ECGChunk(leadCount: 1, capacity: 64)
        var values: [Float] = []
        func drain() throws -> ECGReadResult {
            var last = ECGReadResult.waiting
            while case .samples(let count) = try source.read(into: &chunk) {
                values += chunk.leads[0][0..<count]
                last = .samples(count)
            }
            return last
        }
        #expect(try drain() == .samples(8))
        #expect(source.recordsRead == 2, "the half record waits")
        // the rest of record 2 and record 3 land
        let appender = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try appender.seekToEnd()
        try appender.write(contentsOf: whole[(header + 2 * record + record / 2)..<(header + 4 * record)])
        #expect(try drain() == .samples(8))
        try appender.write(contentsOf: whole[(header + 4 * record)...])
        #expect(try drain() == .samples(4))
        try appender.close()
        #expect(try source.read(into: &chunk) == .waiting, "a followed file does not end")
        // samples count up across both signals: ECG holds 0–3, 6–9, 12–15, … (the Slow lead has 4–5, 10–11, …)
        let expected = (0..<5).flatMap { record in (0..<4).map { Float(record * 6 + $0) } }
        let scale = Float(6.5535 / 65535)
        #expect(zip(values, expected).allSatisfy { abs($0 - ($1 * scale + Float(-3.2768 + 32768 * 6.5535 / 65535))) < 1e-4 },
                "\(values.prefix(8))")
        #expect(values.count == 20)
    }

    /// the one-line message of the error `body` throws, nil when it throws none
    static func message(_ body: () throws -> some Any) -> String? {
        do {
            _ = try body()
            return nil
        } catch {
            return (error as? ECGError)?.description ?? "\(error)"
        }
    }

    // MARK: - hand-built files

    struct Spec {
        var label: String
        var samples: Int
        var digital: ClosedRange<Int> = -32768...32767
        var physical: (Double, Double) = (-3.2768, 3.2767)
    }

    /// An EDF+ file with one annotation signal after `signals` (record duration 1 s);
    /// samples count up from 0; `annotations[r]` are record r's TAL bytes (default: its time-keeping TAL).
    static func build(signals: [Spec], records: Int, annotations: [[UInt8]]? = nil, countField: String? = nil,
                      reserved: String = "EDF+C") -> [UInt8] {
        let tals = annotations ?? (0..<records).map { Array("+\($0)\u{14}\u{14}\u{0}".utf8) }
        let annotationSamples = max(8, (tals.map(\.count).max() ?? 0 + 1) / 2 + 1)
        let all = signals + [Spec(label: "EDF Annotations", samples: annotationSamples, digital: -32768...32767, physical: (-1, 1))]
        var header = [UInt8]()
        func field(_ text: String, _ width: Int) {
            header += Array(text.utf8.prefix(width)) + Array(repeating: 0x20, count: max(0, width - text.utf8.count))
        }
        field("0", 8); field("X X X X", 80); field("Startdate X X X X", 80); field("01.01.24", 8); field("10.00.00", 8)
        field(String(256 * (all.count + 1)), 8); field(reserved, 44); field(countField ?? String(records), 8); field("1", 8)
        field(String(all.count), 4)
        for spec in all { field(spec.label, 16) }
        for _ in all { field("", 80) }
        for spec in all { field(spec.label == "EDF Annotations" ? "" : "mV", 8) }
        for spec in all { field(String(spec.physical.0), 8) }
        for spec in all { field(String(spec.physical.1), 8) }
        for spec in all { field(String(spec.digital.lowerBound), 8) }
        for spec in all { field(String(spec.digital.upperBound), 8) }
        for _ in all { field("", 80) }
        for spec in all { field(String(spec.samples), 8) }
        for _ in all { field("", 32) }
        var bytes = header
        var value: Int16 = 0
        for record in 0..<records {
            for spec in signals {
                for _ in 0..<spec.samples {
                    bytes += [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
                    value &+= 1
                }
            }
            let tal = record < tals.count ? tals[record] : []
            bytes += tal + Array(repeating: 0, count: 2 * annotationSamples - tal.count)
        }
        return bytes
    }

    /// Overwrites the field at `offset` with `text`, space-padded to 8 bytes.
    static func set(_ bytes: inout [UInt8], _ offset: Int, _ text: String) {
        let padded = Array(text.utf8) + Array(repeating: 0x20, count: 8 - text.utf8.count)
        bytes.replaceSubrange(offset..<offset + 8, with: padded)
    }
}
